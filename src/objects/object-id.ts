import type { KubeObject } from './kube-object.ts';

/**
 * The one format every message about an object starts with: `Kind/namespace/name`
 * (`Kind/name` for cluster-scoped objects), as Flux's ssa package does.
 */
export function objectId(obj: Pick<KubeObject, 'kind' | 'metadata'>): string {
  return formatObjectId(obj.kind, obj.metadata.namespace, obj.metadata.name ?? '');
}

export function formatObjectId(kind: string, namespace: string | undefined, name: string): string {
  return namespace ? `${kind}/${namespace}/${name}` : `${kind}/${name}`;
}

/** The parts of an object id, parsed back (for tracking failed deletes between cycles). */
export interface ObjectRef {
  apiVersion: string;
  kind: string;
  namespace?: string;
  name: string;
}

export function refOf(obj: KubeObject): ObjectRef {
  const ref: ObjectRef = { apiVersion: obj.apiVersion, kind: obj.kind, name: obj.metadata.name ?? '' };
  if (obj.metadata.namespace) ref.namespace = obj.metadata.namespace;
  return ref;
}
