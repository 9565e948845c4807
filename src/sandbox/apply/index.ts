/**
 * The server-side-apply engine of the sandbox Kubernetes API: what an object becomes under a
 * write, with Kubernetes' managedFields semantics (structured-merge-diff and the apiserver's
 * field manager), as a pure library. Returned objects may share structure with cached
 * managedFields encodings: treat them as read-only (clone before mutating).
 */
export { conflictStatus } from './conflict-status.ts';
export { ApplyError, type ApplyErrorReason } from './errors.ts';
export type { ManagedFieldsEntry } from './managed-fields.ts';
export { cloneObject, recordUpdate } from './record-update.ts';
export { resetPaths, restoreReset } from './reset-fields.ts';
export { type ListRule, listTable, servedKinds } from './schema.ts';
export { serverSideApply } from './server-side-apply.ts';
export { strategicMergePatch } from './strategic-merge-patch.ts';
export type { ApplyResult, Conflict, KubeObject } from './types.ts';
