/**
 * A reconcile as the agent asks for one (`AgentDeps.reconcile`): the deployment, its revision and
 * the poll's facts about it, and a signal. Here the request becomes a reconcile: which resources
 * it reads through, under the signal, with the render settings of the moment.
 */
import type { DeploymentRecord, RevisionRecord } from '../contract/index.ts';
import type { RenderSettings } from '../render/index.ts';
import type { ConvergedPass } from './converged.ts';
import { reconcileDeployment } from './reconcile.ts';
import type { ReconcileResult } from './result.ts';
import type { ReconcileDeps, Resources } from './types.ts';

/** What the agent asks a reconcile of. */
export interface ReconcileRequest {
  deployment: DeploymentRecord;
  revision: RevisionRecord | undefined;
  /** Reads the revision when it was resolved without it (`DesiredDeployment.pendingRevision`). */
  loadRevision?: (() => Promise<RevisionRecord>) | undefined;
  /** The desired state changed since its last successful reconcile: read the cluster now. */
  changed?: boolean;
  /** The poller's desired-state hash: what the objects are rendered from. */
  hash?: string;
  /** What the deployment's previous reconcile returned as `converged` (the resync's shortcut). */
  converged?: ConvergedPass | undefined;
}

/** What a reconcile hook is made of. */
export interface ReconcileHookParts {
  /** Resources through the cycle's shared listing, and listing directly. */
  resources: { cached: Resources; direct: Resources };
  /** Gives the request's signal to every resource call (cli/abortable.ts). */
  guard(resources: Resources, signal: AbortSignal): Resources;
  /** Everything else a reconcile reads (events, logger, memo, cold passes, ...). */
  deps: Omit<ReconcileDeps, 'resources'>;
  /** The render settings now (they change once, at the start-up check of exposure). */
  renderSettings(): RenderSettings;
}

/**
 * The agent's reconcile. reconcileDeployment takes no signal: its resource calls are guarded
 * instead, so a timed-out, deposed or shut-down reconcile stops at its next step (apply, list,
 * prune, event). A changed deployment does not wait for the cycle's listing (propagation
 * latency): it lists directly.
 */
export function reconcileHook(
  parts: ReconcileHookParts,
): (request: ReconcileRequest, signal: AbortSignal) => Promise<ReconcileResult> {
  // A changed deployment waits for no cold listing: its input key is not the one any memo vouched for.
  const { listedPass: _, ...changedDeps } = parts.deps;
  return (request, signal) =>
    reconcileDeployment(
      {
        ...(request.changed ? changedDeps : parts.deps),
        resources: parts.guard(request.changed ? parts.resources.direct : parts.resources.cached, signal),
      },
      {
        deployment: request.deployment,
        revision: request.revision,
        loadRevision: request.loadRevision,
        settings: parts.renderSettings(),
        ...(request.hash === undefined ? {} : { inputKey: request.hash }),
        converged: request.converged,
      },
    );
}
