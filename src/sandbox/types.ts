/** Shapes shared by the sandbox Kubernetes API modules. */

import type { ManagedFieldsEntry } from './apply/index.ts';

export type { ManagedFieldsEntry };

/** metav1.ObjectMeta, loosely typed: the server keeps whatever the client sent. */
export interface ObjectMeta {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  ownerReferences?: OwnerReference[];
  finalizers?: string[];
  managedFields?: ManagedFieldsEntry[];
  [key: string]: unknown;
}

export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

/** Any Kubernetes object as JSON. */
export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  [key: string]: unknown;
}

/** A stored object: metadata is always present. */
export type StoredObject = KubeObject & { apiVersion: string; kind: string; metadata: ObjectMeta };
