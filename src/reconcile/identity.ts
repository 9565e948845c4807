/**
 * Ownership is read from the object, never inferred from its name. Before anything of a deployment
 * is written, every claim and Secret its pods refer to, and every claim its StatefulSets would
 * adopt (`<template>-<statefulset>-<ordinal>`, created by the StatefulSet controller only when
 * absent), is looked up in the agent's listing of the namespace; one labelled for another
 * deployment or listener refuses the deployment (MOORING_E_FOREIGN_OBJECT), whatever its name. A
 * deployment's name may be a deleted one's, or derive the same base name: the label decides, so a
 * reused or colliding name grants nothing. The objects the deployment writes itself are judged by
 * the same labels at apply (ADR 0007, kube/ownership.ts).
 *
 * The lookups read the listing the agent already makes each cycle (one map lookup per reference);
 * nothing is requested per object. That listing holds this listener's objects only: a claim it
 * does not hold is looked up among the namespace's claims labelled for other listeners, listed
 * once per namespace per poll cycle and only when a rendered deployment meets one
 * (kube/foreign-objects.ts). Without a listing (a restart's that kept no entries), each
 * reference is looked up by name, metadata only (`referencedFinder`).
 */
import pMap from 'p-map';
import { TerminalError } from '../errors.ts';
import type { ObjectFinder } from '../kube/observed-state.ts';
import { LABELS } from '../labels.ts';
import type { KubeObject } from '../objects/kube-object.ts';
import { formatObjectId } from '../objects/object-id.ts';
import type { ReconcileDeps, Resources } from './types.ts';
import { isObj } from '../render/plain-object.ts';
import { podTemplates } from '../render/pod-templates.ts';
import { secretNamesIn } from '../render/references.ts';

/** An object a rendered object refers to or would adopt, and where (for the message). */
export interface Reference {
  kind: 'PersistentVolumeClaim' | 'Secret';
  name: string;
  /** `<Kind>/<name>:<path>` of the referring field. */
  field: string;
}

const CLAIM = 'PersistentVolumeClaim';

/** The claims a pod spec's volumes mount or clone (`persistentVolumeClaim`, an ephemeral claim's data source). */
function claimsIn(spec: Record<string, unknown>, prefix: string, out: Reference[]): void {
  const volumes = Array.isArray(spec.volumes) ? spec.volumes : [];
  volumes.forEach((v, i) => {
    if (!isObj(v)) return;
    const pvc = v.persistentVolumeClaim;
    if (isObj(pvc) && typeof pvc.claimName === 'string') {
      out.push({
        kind: CLAIM,
        name: pvc.claimName,
        field: `${prefix}volumes[${i}].persistentVolumeClaim.claimName`,
      });
    }
    const template = isObj(v.ephemeral) ? v.ephemeral.volumeClaimTemplate : undefined;
    const claimSpec = isObj(template) ? template.spec : undefined;
    if (!isObj(claimSpec)) return;
    for (const source of ['dataSource', 'dataSourceRef']) {
      const ref = claimSpec[source];
      if (isObj(ref) && ref.kind === CLAIM && typeof ref.name === 'string') {
        out.push({
          kind: CLAIM,
          name: ref.name,
          field: `${prefix}volumes[${i}].ephemeral.volumeClaimTemplate.spec.${source}.name`,
        });
      }
    }
  });
}

/** The claims a StatefulSet's controller would create, or adopt when they exist: one per template and ordinal. */
function adoptedClaims(o: KubeObject, out: Reference[]): void {
  const spec = (o as { spec?: unknown }).spec;
  if (o.kind !== 'StatefulSet' || !isObj(spec) || !Array.isArray(spec.volumeClaimTemplates)) return;
  const replicas = Math.max(typeof spec.replicas === 'number' ? spec.replicas : 1, 1);
  spec.volumeClaimTemplates.forEach((t, k) => {
    const name = isObj(t) && isObj(t.metadata) ? t.metadata.name : undefined;
    if (typeof name !== 'string') return;
    for (let i = 0; i < replicas; i++) {
      out.push({
        kind: CLAIM,
        name: `${name}-${o.metadata.name}-${i}`,
        field: `StatefulSet/${o.metadata.name}:spec.volumeClaimTemplates[${k}]`,
      });
    }
  });
}

/** Every claim and Secret the rendered objects' pods refer to, and every claim their StatefulSets would adopt. */
export function referencesOf(objects: readonly KubeObject[]): Reference[] {
  const out: Reference[] = [];
  for (const o of objects) {
    adoptedClaims(o, out);
    for (const t of podTemplates(o as Parameters<typeof podTemplates>[0])) {
      if (!isObj(t.spec)) continue;
      const prefix = `${o.kind}/${o.metadata.name}:${t.path}spec.`;
      claimsIn(t.spec, prefix, out);
      for (const s of secretNamesIn(t.spec))
        out.push({ kind: 'Secret', name: s.name, field: `${prefix}${s.path}` });
    }
  }
  return out;
}

function label(o: KubeObject, key: string): string | undefined {
  const v = o.metadata.labels?.[key];
  return typeof v === 'string' && v !== '' ? v : undefined;
}

/**
 * Refuses (MOORING_E_FOREIGN_OBJECT) when any of `refs` is, by `find`, an object labelled for
 * a deployment other than `deploymentId` or a listener other than `listenerId`.
 */
export function checkIdentity(
  refs: readonly Reference[],
  find: ObjectFinder,
  owner: { namespace: string; deploymentId: string; listenerId: string },
): void {
  for (const ref of refs) {
    const live = find(ref.kind, owner.namespace, ref.name);
    if (!live) continue;
    const deployment = label(live, LABELS.deploymentId);
    const listener = label(live, LABELS.listenerId);
    const otherDeployment = deployment !== undefined && deployment !== owner.deploymentId;
    const otherListener = listener !== undefined && listener !== owner.listenerId;
    if (!otherDeployment && !otherListener) continue;
    const ofListener = otherListener ? ` of listener ${listener}` : '';
    const whose = otherDeployment ? `deployment ${deployment}${ofListener}` : `listener ${listener}`;
    const verb = ref.field.includes(':spec.volumeClaimTemplates') ? 'would adopt' : 'refers to';
    throw new TerminalError(
      'MOORING_E_FOREIGN_OBJECT',
      `${ref.field} ${verb} ${ref.kind} "${ref.name}", which is labelled for ${whose}: ownership is read from the object, not its name; nothing of deployment ${owner.deploymentId} written (delete or relabel the object to release it)`,
      {
        details: {
          field: ref.field,
          kind: ref.kind,
          name: ref.name,
          namespace: owner.namespace,
          ...(deployment === undefined ? {} : { ownerDeploymentId: deployment }),
          ...(listener === undefined ? {} : { ownerListenerId: listener }),
        },
      },
    );
  }
}

/** Lookups by name in flight at once for one reconcile (`referencedFinder`). */
const REFERENCE_LOOKUPS = 4;
/** What an object's name may be (a DNS subdomain's characters, at most 253). */
const OBJECT_NAME = /^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/;

/**
 * The listener's objects among `refs`, for a reconcile that has no listing to read: each looked
 * up by name, metadata only, among the objects the listing would select (`Resources.findOwned`),
 * so that both paths judge alike. Listing the namespace's claims and Secrets instead held
 * thousands of objects for one reconcile, and a restart under a limit far too small ran out of
 * heap with such listings in flight (bench/README.md, "A limit far too small: identity by name").
 */
export async function referencedFinder(
  resources: Pick<Resources, 'findOwned'>,
  refs: readonly Reference[],
  namespace: string,
  listenerId: string,
): Promise<ObjectFinder> {
  // A name no object can have is absent, and never put in a selector; each other is looked up once.
  const named = new Map(
    refs.filter((r) => OBJECT_NAME.test(r.name)).map((r) => [formatObjectId(r.kind, namespace, r.name), r]),
  );
  const found = new Map<string, KubeObject>();
  await pMap(
    named,
    async ([id, ref]) => {
      const stub = { apiVersion: 'v1', kind: ref.kind, metadata: { name: ref.name, namespace } };
      const live = await resources.findOwned(stub, listenerId);
      if (live) found.set(id, live);
    },
    { concurrency: REFERENCE_LOOKUPS },
  );
  return (kind, ns, name) => found.get(formatObjectId(kind, ns, name));
}

/**
 * The identity check of a rendered deployment (step 6b of reconcile.ts): its references looked up
 * in the agent's listing (else each looked up by name: `referencedFinder`), then the claims that
 * listing does not hold among the namespace's claims of other listeners.
 */
export async function checkDesiredIdentity(
  deps: Pick<ReconcileDeps, 'finder' | 'foreignClaims' | 'resources' | 'settings'>,
  desired: readonly KubeObject[],
  at: { namespace: string; deploymentId: string },
): Promise<void> {
  const refs = referencesOf(desired);
  if (refs.length === 0) return;
  const { namespace } = at;
  const owner = { ...at, listenerId: deps.settings.listenerId };
  const find =
    (await deps.finder?.()) ?? (await referencedFinder(deps.resources, refs, namespace, owner.listenerId));
  checkIdentity(refs, find, owner);
  const unlisted = refs.some((r) => r.kind === CLAIM && find(CLAIM, namespace, r.name) === undefined);
  if (!unlisted || !deps.foreignClaims) return;
  const theirs = await deps.foreignClaims(namespace);
  checkIdentity(refs, (kind, _ns, name) => (kind === CLAIM ? theirs.get(name) : undefined), owner);
}
