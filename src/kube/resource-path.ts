/** The REST paths of the kinds the agent writes or reads, and their query strings. */
import { kindInfo } from '../objects/kinds.ts';
import type { KubeObject } from '../objects/kube-object.ts';

/** Kinds outside the managed set that the agent also writes or reads. */
const EXTRA_PLURALS: Record<string, string> = {
  'v1/Event': 'events',
  'v1/Namespace': 'namespaces',
  'coordination.k8s.io/v1/Lease': 'leases',
  'v1/ConfigMap': 'configmaps',
};

/** The plural resource name of a kind (`deployments`), from the kind table. */
function pluralOf(apiVersion: string, kind: string): string {
  const plural = kindInfo(kind)?.plural ?? EXTRA_PLURALS[`${apiVersion}/${kind}`];
  if (!plural) throw new Error(`no resource path known for ${apiVersion} ${kind}`);
  return plural;
}

/** `/api/v1/namespaces/ns/secrets[/name]` or `/apis/apps/v1/namespaces/ns/deployments[/name]`. */
export function resourcePath(apiVersion: string, kind: string, namespace?: string, name?: string): string {
  const base = apiVersion.includes('/') ? `/apis/${apiVersion}` : `/api/${apiVersion}`;
  const ns = namespace ? `/namespaces/${encodeURIComponent(namespace)}` : '';
  const named = name === undefined ? '' : `/${encodeURIComponent(name)}`;
  return `${base}${ns}/${pluralOf(apiVersion, kind)}${named}`;
}

/** The path of `obj` (with its name unless `withName` is false). */
export function objectPath(obj: KubeObject, withName = true): string {
  return resourcePath(
    obj.apiVersion,
    obj.kind,
    obj.metadata.namespace,
    withName ? (obj.metadata.name ?? '') : undefined,
  );
}

/** A query string of the set parameters (`?a=1&b=x`), empty when none is. */
export function query(params: Record<string, string | number | boolean | undefined>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== false) q.set(k, String(v));
  const s = q.toString();
  return s ? `?${s}` : '';
}
