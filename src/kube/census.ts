/**
 * A census of names (ADR 0007): which objects of a kind exist in a namespace, whoever made them,
 * listed once per kind and namespace as metadata only and without our label selector. The cycle's
 * own listing selects by our labels, so it cannot say that a name is free; a census can, for a
 * whole cold convergence, in a few list pages instead of one GET per object. An object a census
 * shows absent is then created with a create-only write (a POST), so an object made after the
 * census is still never written over: the API server answers 409 AlreadyExists, and only then is
 * it read and judged.
 *
 * Of each listed object only what the ownership judgement reads is kept (name, uid, the
 * ownership labels, the managers' names), so a census holds little more than its names.
 */
import { LABELS } from '../labels.ts';
import type { KubeObject, ManagedFieldsEntry } from '../objects/kube-object.ts';
import type { ObjectClient } from './object-client.ts';

/** Whether a name is taken in its namespace, as one census found it. */
export interface Census {
  /**
   * The object of `desired`'s kind, namespace and name as the census listed it (metadata for the
   * ownership judgement only); null when the census found no such object; undefined when the
   * census could not be taken (the caller reads the object instead).
   */
  find(desired: KubeObject): Promise<KubeObject | null | undefined>;
  /** How many lookups found their name free so far. */
  readonly absentFound: number;
}

const OWNERSHIP_LABELS = [LABELS.managedBy, LABELS.listenerId, LABELS.deploymentId] as const;

/** What the ownership judgement reads of a listed object (ownership.ts), and no more. */
function ownershipOnly(item: KubeObject): KubeObject {
  const m = item.metadata;
  const labels: Record<string, string> = {};
  for (const k of OWNERSHIP_LABELS) {
    const v = m.labels?.[k];
    if (typeof v === 'string') labels[k] = v;
  }
  const managers: ManagedFieldsEntry[] = [];
  for (const e of m.managedFields ?? []) {
    if (!e.manager || e.subresource) continue;
    managers.push({ manager: e.manager });
  }
  const metadata: KubeObject['metadata'] = {
    name: m.name,
    namespace: m.namespace,
    labels,
    managedFields: managers,
  };
  if (m.uid !== undefined) metadata.uid = m.uid;
  return { apiVersion: item.apiVersion, kind: item.kind, metadata };
}

/**
 * A census taken on demand: each kind and namespace is listed the first time an object of it is
 * looked up, and that answer stands for the census's life (make a new one per listing cycle). A
 * list that fails is not retried by this census: its objects are `undefined`.
 */
export function takeCensus(client: Pick<ObjectClient, 'list'>): Census {
  const lists = new Map<string, Promise<Map<string, KubeObject> | undefined>>();
  let absentFound = 0;
  return {
    get absentFound() {
      return absentFound;
    },
    async find(desired) {
      const namespace = desired.metadata.namespace ?? '';
      const key = `${namespace}\u0000${desired.apiVersion}\u0000${desired.kind}`;
      let list = lists.get(key);
      if (!list) {
        list = client
          .list(desired.apiVersion, desired.kind, namespace, '', ownershipOnly, { metadataOnly: true })
          .then(
            (items) => new Map(items.map((o) => [o.metadata.name ?? '', o])),
            () => undefined,
          );
        lists.set(key, list);
      }
      const found = await list;
      if (!found) return undefined;
      const held = found.get(desired.metadata.name ?? '');
      if (held) return held;
      absentFound += 1;
      return null;
    },
  };
}
