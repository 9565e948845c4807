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

/**
 * The outcome of a server-side apply. `changed` is false exactly when nothing is to be written:
 * the object is then `live` itself (same reference), managedFields and their times included, so
 * the server keeps its resourceVersion. It is true when the content or only the managedFields
 * changed (a new co-owner, a released field); both need a write, as in a real apiserver.
 */
export type ApplyResult =
  | { ok: true; object: KubeObject; changed: boolean }
  | { ok: false; conflicts: Conflict[] };
