/**
 * The StatefulSet controller's history: one ControllerRevision per pod template
 * (`<set>-<hash>`), owned by the set, holding the strategic merge patch that restores the
 * template (what `kubectl rollout undo sts` applies) and a `revision` number. A template that
 * comes back reuses its ControllerRevision with the next number, as the controller does.
 */
import { recordUpdate } from './apply/index.ts';
import type { Cluster } from './cluster.ts';
import { clone } from './equal.ts';
import { controllerRef, podTemplateHash } from './replica-sets.ts';
import type { StoredObject } from './types.ts';

type Obj = Record<string, unknown>;

const MANAGER = 'kube-controller-manager';
/** The label the controller puts the template hash in (history.ControllerRevisionHashLabel). */
const HASH_LABEL = 'controller.kubernetes.io/hash';

/** Brings the set's ControllerRevisions in line with its template; returns the current one's name. */
export function syncControllerRevisions(cluster: Cluster, set: StoredObject): string {
  const type = cluster.typeFor('apps/v1', 'ControllerRevision');
  const namespace = set.metadata.namespace ?? '';
  const hash = podTemplateHash(set);
  const name = `${set.metadata.name}-${hash}`;
  const owned = cluster.store
    .dependents(set.metadata.uid ?? '')
    .filter((d) => d.object.kind === 'ControllerRevision')
    .map((d) => cluster.store.get(type, namespace, d.object.metadata.name ?? ''))
    .filter((r): r is StoredObject => r !== undefined);
  const others = owned.filter((r) => r.metadata.name !== name).map((r) => Number(r.revision ?? 0));
  const latest = Math.max(0, ...others);
  const live = owned.find((r) => r.metadata.name === name);
  const now = cluster.now();
  if (live) {
    if (Number(live.revision ?? 0) > latest) return name;
    const next = { ...live, revision: latest + 1 };
    cluster.commit(type, recordUpdate({ live, updated: next, manager: MANAGER, now }) as StoredObject, live);
    return name;
  }
  const template = clone(((set.spec as Obj | undefined)?.template ?? {}) as Obj);
  const labels = ((template.metadata as Obj | undefined)?.labels ?? {}) as Record<string, string>;
  const revision: StoredObject = {
    apiVersion: 'apps/v1',
    kind: 'ControllerRevision',
    metadata: {
      name,
      namespace,
      uid: cluster.uid(),
      creationTimestamp: now,
      labels: { ...labels, [HASH_LABEL]: hash },
      ownerReferences: [controllerRef('StatefulSet', set)],
    },
    data: { spec: { template: { ...template, $patch: 'replace' } } },
    revision: latest + 1,
  };
  const recorded = recordUpdate({ live: undefined, updated: revision, manager: MANAGER, now });
  cluster.commit(type, recorded as StoredObject, undefined);
  return name;
}
