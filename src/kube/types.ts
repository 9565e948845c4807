/** Shapes the resource manager works with: any Kubernetes object as plain JSON. */

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

/** Any Kubernetes object: apiVersion, kind and metadata are always set on what we apply. */
export interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: ObjectMeta;
  [key: string]: unknown;
}
