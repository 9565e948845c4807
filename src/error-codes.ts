/**
 * The closed set of mooring's error codes: each a constant with a message, whether it is worth
 * retrying, and how it is handled. `docs/errors.md` lists every code; a test keeps the two in sync.
 * The classes that carry a code are in `errors.ts`.
 */

export interface ErrorSpec {
  /** One line describing what went wrong, for docs and as a default message. */
  readonly summary: string;
  /** Whether the operation may succeed if tried again unchanged. */
  readonly retryable: boolean;
  /**
   * Not retryable, yet parked only until the next resync rather than until the desired state
   * changes: what it waits for lies in the cluster, outside the desired state (an object of the
   * same name that someone else owns, removed by its owner or an operator).
   */
  readonly untilResync?: boolean;
  /**
   * How the code is handled where retryability alone does not say it (docs/errors.md's "retried"
   * column): codes that stop a command or the agent's start-up, or that a later poll retries.
   */
  readonly handling?: string;
}

export const ERROR_CODES = {
  // configuration and input
  MOORING_E_CONFIG_INVALID: {
    summary: 'The agent settings are invalid.',
    retryable: false,
    handling: 'no: the command stops (`mooring run` exits 2); fix the settings',
  },
  MOORING_E_INPUT_INVALID: {
    summary: 'An input file or argument is missing or malformed.',
    retryable: false,
    handling: 'no: the command stops (exit 2); fix the file or argument',
  },
  MOORING_E_EMULATOR_MISSING: {
    summary: "The sandbox Kubernetes API's development packages are not installed.",
    retryable: false,
    handling: 'no: the command stops (exit 2)',
  },

  // control plane (client side)
  MOORING_E_CP_UNREACHABLE: { summary: 'The control plane could not be reached.', retryable: true },
  MOORING_E_CP_TIMEOUT: { summary: 'A control-plane request timed out.', retryable: true },
  MOORING_E_CP_UNAVAILABLE: {
    summary: 'The control plane answered 429 or 5xx (after retries).',
    retryable: true,
  },
  MOORING_E_CP_UNAUTHORIZED: {
    summary: 'The control plane refused the API key (401/403).',
    retryable: false,
    handling:
      'at start-up no: the agent exits 1; while running, each poll and heartbeat tries again, with backoff',
  },
  MOORING_E_CP_NOT_FOUND: {
    summary: 'The control plane has no such resource (404).',
    retryable: false,
    handling:
      'while running, each poll and heartbeat tries again, with backoff (at start-up a missing listener is `MOORING_E_LISTENER_NOT_FOUND`)',
  },
  MOORING_E_CP_REJECTED: {
    summary: 'The control plane rejected the request (4xx).',
    retryable: false,
    handling:
      'at start-up no: the agent exits 1; while running, each poll and heartbeat tries again, with backoff',
  },
  MOORING_E_CP_BAD_RESPONSE: {
    summary: 'The control plane sent a response that does not match the interface.',
    retryable: true,
  },
  MOORING_E_CP_LISTING_SHIFTED: {
    summary:
      'A listing kept losing records between its pages (the total fell while it was read); it is not used for pruning.',
    retryable: true,
  },
  MOORING_E_CP_NOT_PROVIDED: {
    summary:
      'The reference control plane does not provide this service (image registry, source upload, build or deploy logs): it answers 501.',
    retryable: false,
    handling: 'no: push the image elsewhere and PATCH its `image_uri` (docs/control-plane.md)',
  },
  MOORING_E_CP_RESPONSE_TOO_LARGE: {
    summary: 'A control-plane answer is larger than --control-plane-max-response-mib; it is not read.',
    retryable: false,
    handling: 'no: that request alone fails; the next poll asks again, with backoff',
  },
  MOORING_E_CP_TLS_UNTRUSTED: {
    summary:
      "The control plane's TLS certificate is not trusted (give its CA with --control-plane-ca-file or NODE_EXTRA_CA_CERTS).",
    retryable: false,
    // A failure of the control-plane connection, not of one deployment: nothing is parked.
    handling:
      'at start-up no: the agent exits 1; while running, each poll and heartbeat tries again, with backoff',
  },
  MOORING_E_RECORD_INVALID: {
    summary: 'A record in a control-plane page is malformed; it is refused alone.',
    retryable: false,
  },
  MOORING_E_RECORD_UNSUPPORTED: {
    summary: 'A record uses a value this agent does not support (a new source or status).',
    retryable: false,
  },

  // listener registration
  MOORING_E_LISTENER_NOT_FOUND: {
    summary: 'The configured listener does not exist.',
    retryable: false,
    handling: 'no: checked at start-up, the agent exits 1',
  },
  MOORING_E_LISTENER_NOT_K8S: {
    summary: "The configured listener's compute_type is not k8s.",
    retryable: false,
    handling: 'no: checked at start-up, the agent exits 1',
  },

  // rendering and policy
  MOORING_E_RENDER_INVALID: {
    summary: 'The ResourceSpec has an invalid value or combination.',
    retryable: false,
  },
  MOORING_E_RENDER_POLICY: {
    summary: 'A pod would break the policy (a Pod Security Standard control, a volume type).',
    retryable: false,
  },
  MOORING_E_RENDER_NAME_COLLISION: {
    summary: 'Two deployments would produce the same object names in one namespace.',
    retryable: false,
  },
  MOORING_E_RENDER_URL_CLAIMED: {
    summary: "The deployment's custom_url is an older deployment's (same host and path).",
    retryable: false,
  },
  MOORING_E_RENDER_NO_IMAGE: { summary: 'The revision has no image_uri to run.', retryable: false },
  MOORING_E_NAMESPACE_NOT_ALLOWED: {
    summary: "The deployment's target namespace is not one of the agent's namespaces.",
    retryable: false,
  },
  MOORING_E_TENANT_MISMATCH: {
    summary: "The deployment's tenant is not the one its target namespace is bound to.",
    retryable: false,
  },
  MOORING_E_EXPOSURE_UNAVAILABLE: {
    summary:
      'The cluster does not serve the exposure kind set (e.g. no Gateway API CRDs); nothing is exposed.',
    retryable: false,
    handling: 'checked once at start: restart the agent after installing the kind',
  },

  // Kubernetes
  MOORING_E_KUBE_UNREACHABLE: { summary: 'The Kubernetes API could not be reached.', retryable: true },
  MOORING_E_KUBE_SERVER: { summary: 'The Kubernetes API answered 429 or 5xx.', retryable: true },
  MOORING_E_KUBE_CONFLICT: {
    summary: 'A Kubernetes write conflicted (409: stale resourceVersion or field ownership).',
    retryable: true,
  },
  MOORING_E_KUBE_INVALID: {
    summary: 'The Kubernetes API rejected an object as invalid (422).',
    retryable: false,
  },
  MOORING_E_KUBE_IMMUTABLE: {
    summary: 'A change touches an immutable field and the object may not be recreated.',
    retryable: false,
  },
  MOORING_E_KUBE_FORBIDDEN: {
    summary: 'The Kubernetes API refused the agent (401/403).',
    retryable: false,
    handling:
      'at start-up (a watched namespace cannot be read) no: the agent exits 1; in a reconcile: parked until the desired state changes',
  },
  MOORING_E_KUBE_NOT_FOUND: {
    summary: 'A Kubernetes object or namespace does not exist.',
    retryable: false,
    handling:
      'at start-up (a watched namespace is missing) no: the agent exits 1; in a reconcile: parked until the desired state changes',
  },
  MOORING_E_KUBE_REQUEST: { summary: 'The Kubernetes API rejected a request (other 4xx).', retryable: false },
  MOORING_E_KUBE_APPLY_CONFLICT: {
    summary:
      'An object read as absent was made by someone else before our forced apply; the apply took it over and the deployment is refused until the next resync.',
    retryable: false,
    untilResync: true,
  },
  MOORING_E_KUBE_OWNERSHIP: {
    summary:
      'An object of that name belongs to another deployment, another listener or another manager; nothing was written.',
    retryable: false,
    untilResync: true,
  },
  MOORING_E_FOREIGN_OBJECT: {
    summary:
      'The deployment would mount, read or adopt an object labelled for another deployment or listener (whatever its name); nothing was written.',
    retryable: false,
    untilResync: true,
  },
  MOORING_E_LABELS_FOREIGN_SELECTOR: {
    summary:
      "The deployment's labels would put its pods behind a Service or inside a NetworkPolicy of a workload that is not its own; nothing was written.",
    retryable: false,
    untilResync: true,
  },

  // proxies (both clients)
  MOORING_E_PROXY_REFUSED: {
    summary:
      'The HTTP proxy refused to open a tunnel (its answer to CONNECT was not 200); retried only when it answered 5xx.',
    retryable: false,
    // The proxy's policy lies outside the desired state: try again once it may have changed.
    untilResync: true,
  },

  // pruning, health, reconcile
  MOORING_E_PRUNE_LISTING_INCOMPLETE: {
    summary: 'An inventory listing failed or was partial; nothing was pruned.',
    retryable: true,
  },
  MOORING_E_PRUNE_CAP_EXCEEDED: {
    summary: 'More deletions were due than the per-cycle cap allows; none were made.',
    retryable: false,
  },
  MOORING_E_DELETE_CAP_EXCEEDED: {
    summary: 'More deployments were AWAITING_DELETE than the per-cycle cap allows; none were deleted.',
    retryable: false,
    handling: 'at the next snapshot within the cap (checked every poll)',
  },
  MOORING_E_ROLLOUT_FAILED: {
    summary: 'A workload failed to roll out (progress deadline exceeded).',
    retryable: false,
  },
  MOORING_E_RECONCILE_TIMEOUT: { summary: 'A reconcile did not finish within its timeout.', retryable: true },

  // agent
  MOORING_E_LEADERSHIP_LOST: {
    summary: 'The agent lost its leader lease; it stopped writing.',
    retryable: true,
  },
  MOORING_E_SHARDS_INVALID: {
    summary: '--shards is over 256, or over 1 without --leader-election.',
    retryable: false,
    handling: 'no: the command stops (`mooring run` exits 2); fix the settings',
  },
  MOORING_E_CANCELLED: {
    summary:
      'A reconcile was cancelled (shutdown, or the leader lease lost): its writes in flight were cut and nothing more was sent.',
    retryable: true,
    handling: 'not a failure of the deployment: no backoff; the next term or replica reconciles it',
  },
  MOORING_E_MEMORY_SHORT: {
    summary:
      "The agent's heap is short for the listener: deployments never reconciled wait (Pending); a start's listing of every object is given up.",
    retryable: true,
    handling: 'at each poll, once the heap has room again (give the agent a larger memory limit)',
  },
  // command line
  MOORING_E_STATUS_UNAVAILABLE: {
    summary: "The agent's /status could not be read (unreachable, refused, or not a status document).",
    retryable: true,
    handling: 'no: `mooring status` exits 1; run it again',
  },

  MOORING_E_INTERNAL: { summary: 'An unexpected internal error (a bug: please report it).', retryable: true },
} as const satisfies Record<string, ErrorSpec>;

export type ErrorCode = keyof typeof ERROR_CODES;
