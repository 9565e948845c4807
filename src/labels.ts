/**
 * The ownership labels and annotations mooring puts on every object it manages and reads back
 * from the cluster: the one definition the renderer (which writes them) and the resource manager
 * (which selects, prunes and compares by them) share. Pure constants: no I/O, nothing from `kube/`.
 */

/** Label keys mooring owns. Users may not set them (nor anything under `mooring.dev/`). */
export const LABELS = {
  managedBy: 'app.kubernetes.io/managed-by',
  listenerId: 'mooring.dev/listener-id',
  deploymentId: 'mooring.dev/deployment-id',
  component: 'app.kubernetes.io/component',
  name: 'app.kubernetes.io/name',
  instance: 'app.kubernetes.io/instance',
} as const;

/** The value of `app.kubernetes.io/managed-by` on everything mooring manages. */
export const MANAGED_BY = 'mooring';

/** Annotation keys mooring owns. */
export const ANNOTATIONS = {
  /** The control-plane revision an object was rendered from. */
  revisionId: 'mooring.dev/revision-id',
  /** sha256 of the desired object as last applied: the no-op check's first half. */
  desiredHash: 'mooring.dev/desired-hash',
  /** `"true"`: created once, never updated or overwritten (the Postgres credentials Secret). */
  createOnly: 'mooring.dev/create-only',
  /** Comma list of Secret keys filled with CSPRNG values when a create-only Secret is created. */
  generateKeys: 'mooring.dev/generate-keys',
  /**
   * Set by an operator, never by mooring: `disabled` on a managed object pauses it (pause.ts); on
   * a deployment's API server Deployment, the whole deployment.
   */
  reconcile: 'mooring.dev/reconcile',
} as const;
