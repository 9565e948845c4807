/** What `Deployments` (deployments.ts) is given: its stores, hooks and the reconcile itself. */
import type { RevisionRecord } from '../contract/index.ts';
import type { Logger } from '../log.ts';
import type { AgentMetrics } from '../ops/metrics.ts';
import type { ConvergedPass } from '../reconcile/converged.ts';
import type { ReconcileResult } from '../reconcile/result.ts';
import type { Redactor } from '../redact.ts';
import type { Clock } from './clock.ts';
import type { OrphanPassResult } from './orphan-pass.ts';
import type { DesiredDeployment, Snapshot } from './poll-cycle.ts';
import type { StatusStore } from './status.ts';

export interface DeploymentsDeps {
  status: StatusStore;
  /** Reads a revision a poll resolved without it (`DesiredDeployment.pendingRevision`). */
  loadRevision?: (deploymentId: string, revisionId: string) => Promise<RevisionRecord>;
  logger: Logger;
  /**
   * Under heap pressure, what is not held yet waits (MemoryBudget.defers); told to forget a
   * deployment that left the listing; none: no limit.
   */
  memory?:
    | {
        /** `parked`: it waits with its record dropped (DeploymentBook.park). */
        defers(id: string, held: boolean, parked?: boolean): string | undefined;
        forget(id: string): void;
        /** Whether a full resync's listing fits the heap now; while not, polls make none (plan-poll.ts). */
        readonly resyncFits?: boolean;
        /** How many deployments wait with their records dropped (the next listing brings them). */
        parked?(count: number): void;
      }
    | undefined;
  /**
   * Told each deployment's secret values as its record is taken, and to forget them once it left
   * the listing and no reconcile of it runs any more: what the agent emits is scrubbed of them.
   */
  redactor?: Pick<Redactor, 'set' | 'forget'> | undefined;
  metrics: AgentMetrics;
  clock: Clock;
  /**
   * Time between full resyncs (default 0: every poll is one). A poll sooner than that after the
   * last resync queues only changed and new deployments, like a poll while work is still queued.
   */
  resyncIntervalMs?: number;
  /**
   * The poll interval. A resync that took longer than this (its cold start's excepted) is
   * followed by a rest as long as it took before the next resync; unset, resyncs never rest.
   */
  pollIntervalMs?: number;
  reconcile(
    input: Pick<DesiredDeployment, 'deployment' | 'revision'> & {
      loadRevision?: (() => Promise<RevisionRecord>) | undefined;
      changed?: boolean;
      hash?: string;
      converged?: ConvergedPass | undefined;
    },
    signal: AbortSignal,
  ): Promise<ReconcileResult>;
  collectOrphans(snapshot: Snapshot, signal: AbortSignal): Promise<OrphanPassResult>;
  /** Called when a resync begins, before its deployments are queued (starts the cycle's inventory listing). */
  beginCycle?: (() => void) | undefined;
  onReconciled?: ((deploymentId: string, result: ReconcileResult) => void) | undefined;
  /**
   * Whether a deployment still owns objects (kept volumes aside) by the latest complete listing;
   * undefined when there is none yet. An AWAITING_DELETE record whose objects are gone is not due
   * for deletion, so records lingering in the control plane never hold the cap (delete-cap.ts).
   */
  ownsObjects?: ((deploymentId: string) => boolean | undefined) | undefined;
  /**
   * Whether a resync may leave a Ready deployment alone: nothing of it changed since its last
   * reconcile verified it (the watches say so, rule 8 of kube/observed-state.ts). Unset: never.
   */
  quiet?: ((deploymentId: string) => boolean) | undefined;
  /**
   * Whether the restart memo (ADR 0010) vouched for the deployment as converged when this process
   * started: its objects are in the cluster and the memo's entries for them are on the heap, so a
   * short heap holds it as one the agent holds already. Waiting instead dropped its record to take
   * it back at the next listing, and each one dropped counted as room taken: a restart under a
   * short heap kept itself short and reconciled one deployment at a time (issue 40). Unset: never.
   */
  restored?: ((deploymentId: string) => boolean) | undefined;
  /** Told the ids of each complete listing once it is taken (the restart memo's vouches that left it go). */
  onListed?: ((deploymentIds: ReadonlySet<string>) => void) | undefined;
  /** Told once when a deployment becomes refused by the poller (or its reason changes): the Event. */
  onRefused?: ((d: DesiredDeployment) => void) | undefined;
}
