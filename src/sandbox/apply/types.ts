/** The shapes the apply engine exchanges with the server. */
import type { ManagedFieldsEntry } from './managed-fields.ts';

/** A Kubernetes object as JSON. */
export type KubeObject = {
  apiVersion: string;
  kind: string;
  metadata: { name?: string; namespace?: string; managedFields?: ManagedFieldsEntry[]; [k: string]: unknown };
  [k: string]: unknown;
};

/** One field an apply would take from another manager. */
export interface Conflict {
  manager: string;
  apiVersion: string;
  /** Path in kube form, e.g. `.spec.replicas` or `.spec.template.spec.containers[name="app"].image`. */
  field: string;
  /** The other manager's operation; an `Apply` manager is printed without its apiVersion. */
  operation?: 'Apply' | 'Update';
  subresource?: string;
}

export type ApplyResult =
  | { ok: true; object: KubeObject; changed: boolean }
  | { ok: false; conflicts: Conflict[] };
