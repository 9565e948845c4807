/**
 * The one shape of a Kubernetes object as plain JSON, shared by what renders objects (render/),
 * what applies and lists them (kube/) and the agent's loop: render hands its output to kube as is.
 */

/** A managedFields entry (metav1.ManagedFieldsEntry). */
export interface ManagedFieldsEntry {
  manager?: string;
  operation?: string;
  apiVersion?: string;
  time?: string | Date;
  fieldsType?: string;
  fieldsV1?: Record<string, unknown>;
  subresource?: string;
}

/** metav1.ObjectMeta, loosely typed. */
export interface ObjectMeta {
  name?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  deletionTimestamp?: string | Date;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  managedFields?: ManagedFieldsEntry[];
  [key: string]: unknown;
}

/**
 * Any Kubernetes object: apiVersion, kind and metadata are always set on what we apply. `M` narrows
 * the metadata where more is known (a rendered object always has its name, namespace, labels and
 * annotations); every such object is still a `KubeObject`.
 */
export interface KubeObject<M extends ObjectMeta = ObjectMeta> {
  apiVersion: string;
  kind: string;
  metadata: M;
  [key: string]: unknown;
}
