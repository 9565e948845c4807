/**
 * Quantities written in their canonical form, as the API server does when it decodes an object
 * into resource.Quantity: `0.5` CPU is stored as `500m`, `1024Mi` as `1Gi`, a JSON number `1` as
 * the string `"1"`. Applied to every quantity field of the kinds the sandbox serves; a value that
 * is not a quantity is refused as the server's decoder refuses it (400).
 */
import { parseQuantity } from '../quantity.ts';
import { badRequest } from './status.ts';
import type { StoredObject } from './types.ts';

type Obj = Record<string, unknown>;

const FORMAT = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";

const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);
const objs = (v: unknown): Obj[] => (Array.isArray(v) ? v.filter(isObj) : []);

/** The server's form of one quantity; undefined when it is not one. */
function canonical(value: string | number): string | undefined {
  const text = typeof value === 'number' ? String(value) : value;
  const negative = text.startsWith('-');
  const parsed = parseQuantity(negative ? text.slice(1) : value);
  if (!parsed) return undefined;
  return negative && parsed.server !== '0' ? `-${parsed.server}` : parsed.server;
}

class Canonicalizer {
  private readonly fail: () => never;

  constructor(fail: () => never) {
    this.fail = fail;
  }

  one(parent: Obj | undefined, key: string): void {
    const v = parent?.[key];
    if (parent === undefined || v === undefined || v === null) return;
    if (typeof v !== 'string' && typeof v !== 'number') this.fail();
    const c = canonical(v as string | number);
    if (c === undefined) this.fail();
    parent[key] = c;
  }

  map(parent: Obj | undefined, key: string): void {
    const m = parent?.[key];
    if (isObj(m)) for (const k of Object.keys(m)) this.one(m, k);
  }

  requirements(r: unknown): void {
    if (!isObj(r)) return;
    this.map(r, 'limits');
    this.map(r, 'requests');
  }

  claim(pvc: unknown): void {
    if (!isObj(pvc)) return;
    if (isObj(pvc.spec)) this.requirements(pvc.spec.resources);
    if (isObj(pvc.status)) {
      this.map(pvc.status, 'capacity');
      this.map(pvc.status, 'allocatedResources');
    }
  }

  podSpec(spec: unknown): void {
    if (!isObj(spec)) return;
    for (const list of ['containers', 'initContainers', 'ephemeralContainers'])
      for (const c of objs(spec[list])) this.requirements(c.resources);
    this.map(spec, 'overhead');
    this.requirements(spec.resources);
    for (const v of objs(spec.volumes)) {
      if (isObj(v.emptyDir)) this.one(v.emptyDir, 'sizeLimit');
      if (isObj(v.ephemeral)) this.claim(v.ephemeral.volumeClaimTemplate);
    }
  }

  /** autoscaling/v2 metric targets (spec) and current values (status). */
  metrics(list: unknown, key: 'target' | 'current'): void {
    for (const m of objs(list)) {
      for (const source of ['resource', 'containerResource', 'pods', 'object', 'external']) {
        const at = isObj(m[source]) ? m[source][key] : undefined;
        if (!isObj(at)) continue;
        this.one(at, 'averageValue');
        this.one(at, 'value');
      }
    }
  }
}

/** Rewrites every quantity field of `o` in the server's canonical form, in place. */
export function canonicalizeQuantities(o: StoredObject): void {
  const version = (o.apiVersion ?? '').split('/').pop() ?? '';
  const c = new Canonicalizer(() => {
    throw badRequest(`${o.kind} in version "${version}" cannot be handled as a ${o.kind}: ${FORMAT}`);
  });
  const spec = isObj(o.spec) ? o.spec : undefined;
  switch (o.kind) {
    case 'Pod':
      c.podSpec(spec);
      return;
    case 'Deployment':
    case 'ReplicaSet':
      c.podSpec(isObj(spec?.template) ? spec.template.spec : undefined);
      return;
    case 'StatefulSet':
      c.podSpec(isObj(spec?.template) ? spec.template.spec : undefined);
      for (const t of objs(spec?.volumeClaimTemplates)) c.claim(t);
      return;
    case 'PersistentVolumeClaim':
      c.claim(o);
      return;
    case 'HorizontalPodAutoscaler':
      c.metrics(spec?.metrics, 'target');
      c.metrics(isObj(o.status) ? o.status.currentMetrics : undefined, 'current');
      return;
    default:
      return;
  }
}
