/**
 * The server-side-apply engine of the sandbox Kubernetes API: what an object becomes under a
 * write, with Kubernetes' managedFields semantics (structured-merge-diff and the apiserver's
 * field manager), as a pure library.
 */
export { conflictStatus } from './conflict-status.ts';
export { ApplyError, type ApplyErrorReason } from './errors.ts';
export type { ManagedFieldsEntry } from './managed-fields.ts';
export { type ListRule, listTable, servedKinds } from './schema.ts';
export {
  type ApplyResult,
  type Conflict,
  cloneObject,
  type KubeObject,
  recordUpdate,
  serverSideApply,
} from './server-side-apply.ts';
export { strategicMergePatch } from './strategic-merge-patch.ts';
