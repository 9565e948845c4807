/** The `scale` subresource (autoscaling/v1 Scale) of Deployments and StatefulSets. */
import type { Cluster } from './cluster.ts';
import { clone } from './equal.ts';
import type { ResourceType } from './resources.ts';
import { badRequest, methodNotAllowed, notFound } from './status.ts';
import type { KubeObject, StoredObject } from './types.ts';
import type { WriteOptions } from './write-options.ts';
import { mergePatch, update } from './writes.ts';

type Obj = Record<string, unknown>;

function toScale(obj: StoredObject): KubeObject {
  const spec = (obj.spec ?? {}) as Obj;
  const status = (obj.status ?? {}) as Obj;
  const matchLabels = ((spec.selector as Obj | undefined)?.matchLabels ?? {}) as Record<string, string>;
  return {
    kind: 'Scale',
    apiVersion: 'autoscaling/v1',
    metadata: {
      name: obj.metadata.name,
      namespace: obj.metadata.namespace,
      uid: obj.metadata.uid,
      resourceVersion: obj.metadata.resourceVersion,
      creationTimestamp: obj.metadata.creationTimestamp,
    },
    spec: { replicas: spec.replicas ?? 0 },
    status: {
      replicas: (status.replicas as number | undefined) ?? 0,
      selector: Object.entries(matchLabels)
        .map(([k, v]) => `${k}=${v}`)
        .join(','),
    },
  };
}

function live(
  cluster: Cluster,
  type: ResourceType,
  namespace: string | undefined,
  name: string,
): StoredObject {
  const obj = cluster.store.get(type, namespace ?? '', name);
  if (!obj) throw notFound(type, name);
  return obj;
}

export const scale = {
  get(cluster: Cluster, type: ResourceType, namespace: string | undefined, name: string): KubeObject {
    return toScale(live(cluster, type, namespace, name));
  },

  /** PUT or merge PATCH of a Scale: changes spec.replicas of the workload. */
  write(
    cluster: Cluster,
    type: ResourceType,
    namespace: string | undefined,
    name: string,
    verb: string,
    contentType: string,
    text: string,
    options: WriteOptions,
  ): { code: number; body: KubeObject } {
    const current = live(cluster, type, namespace, name);
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      throw badRequest('the body of the request was in an unknown format');
    }
    let wanted: Obj;
    if (verb === 'update') wanted = body as Obj;
    else if (verb === 'patch' && contentType !== 'application/json-patch+json')
      wanted = mergePatch(toScale(current), body) as Obj;
    else throw methodNotAllowed('only update and merge patches are supported on scale');
    const replicas = (wanted.spec as Obj | undefined)?.replicas;
    if (typeof replicas !== 'number') throw badRequest('spec.replicas must be an integer');
    const next = clone(current);
    (next.spec as Obj).replicas = replicas;
    const out = update(cluster, type, namespace, name, next, options);
    return { code: out.code, body: toScale(out.body as StoredObject) };
  },
};
