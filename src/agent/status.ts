/**
 * What the agent knows about each deployment it owns, for `/status`, the deployments-by-state
 * metric and `mooring status`. It holds ids, names, states and coded reasons only: never a
 * secret or a spec. A reason may quote the API server (a 403's or 409's message), so reasons are
 * stored scrubbed of every known secret value (the agent's `Redactor`).
 */
import { NO_SCRUB, type Scrubber } from '../redact.ts';

/** The state of one deployment as the agent sees it. */
export const DEPLOYMENT_STATES = [
  /** Seen in a listing, not reconciled yet. */
  'Pending',
  /** Applied; workloads rolling out. */
  'Progressing',
  'Ready',
  /** Applied, but a workload failed (rollout deadline). */
  'Failed',
  'Deleting',
  'Deleted',
  /** The last reconcile failed with a retryable error; it will be retried with backoff. */
  'Retrying',
  /**
   * Refused with a terminal error; parked until the deployment changes (an object name another
   * deployment, listener or manager owns: until the next resync, or the change).
   */
  'Refused',
] as const;
export type DeploymentState = (typeof DEPLOYMENT_STATES)[number];

export interface DeploymentStatusEntry {
  id: string;
  name: string;
  namespace: string | null;
  /** The revision the agent runs (or would run). */
  revision: string | null;
  /** The deployment's status in the control plane (READY, UNUSED, AWAITING_DELETE...). */
  controlPlaneStatus: string;
  state: DeploymentState;
  /** A coded reason (`MOORING_E_*: message`) or a health reason; null when all is well. */
  reason: string | null;
  /** When a reconcile last changed something in the cluster (ISO 8601). */
  lastAppliedAt: string | null;
  /** When a reconcile last finished (ISO 8601). */
  lastReconcileAt: string | null;
  /** Change-set summary of the last reconcile, e.g. "created 3, unchanged 2". */
  lastChanges: string | null;
  /**
   * Objects the last reconcile left alone because an operator paused them
   * (`mooring.dev/reconcile: disabled`); all of them when the whole deployment is paused.
   */
  paused: string[];
}

export interface ObservedDeployment {
  id: string;
  name: string;
  namespace: string | null;
  revision: string | null;
  controlPlaneStatus: string;
}

export interface ReconcileRecord {
  state: DeploymentState;
  reason: string | null;
  /** True when the reconcile wrote something. */
  changed: boolean;
  changes: string | null;
  atMs: number;
  /** Ids of the objects left alone for a pause (none when omitted). */
  paused?: string[];
}

export class StatusStore {
  readonly #entries = new Map<string, DeploymentStatusEntry>();
  readonly #scrubber: Scrubber;
  /** The times and change summaries the entries share. */
  readonly #texts = new SharedTexts();
  /**
   * Entries per state and paused objects over all entries, kept as entries change: a scrape of
   * `/metrics` reads them at once, where counting walked every entry (milliseconds at 10,000).
   */
  readonly #perState = zeroPerState();
  #paused = 0;

  /** `scrubber` cleans each reason as it is stored; default none (tests). */
  constructor(options: { scrubber?: Scrubber } = {}) {
    this.#scrubber = options.scrubber ?? NO_SCRUB;
  }

  /**
   * Records what the latest listing says about a deployment (new ones start Pending). The entry is
   * written in place, every member in one literal when new: an entry made by spreads put some of
   * its members in a store of their own.
   */
  observe(d: ObservedDeployment): void {
    const prev = this.#entries.get(d.id);
    if (prev) {
      prev.name = d.name;
      prev.namespace = d.namespace;
      prev.revision = d.revision;
      prev.controlPlaneStatus = d.controlPlaneStatus;
      return;
    }
    this.#perState.Pending += 1;
    this.#entries.set(d.id, {
      id: d.id,
      name: d.name,
      namespace: d.namespace,
      revision: d.revision,
      controlPlaneStatus: d.controlPlaneStatus,
      state: 'Pending',
      reason: null,
      lastAppliedAt: null,
      lastReconcileAt: null,
      lastChanges: null,
      paused: NONE_PAUSED,
    });
  }

  /** Records a reconcile's outcome. Unknown ids are ignored (the deployment went meanwhile). */
  record(id: string, r: ReconcileRecord): void {
    const entry = this.#entries.get(id);
    if (!entry) return;
    const at = this.#texts.time(r.atMs);
    this.#perState[entry.state] -= 1;
    this.#perState[r.state] += 1;
    entry.state = r.state;
    entry.reason = r.reason === null ? null : this.#scrubber.scrub(r.reason);
    entry.lastReconcileAt = at;
    if (r.changes !== null) entry.lastChanges = this.#texts.summary(r.changes);
    if (r.changed) entry.lastAppliedAt = at;
    const paused = r.paused?.length ? r.paused : NONE_PAUSED;
    this.#paused += paused.length - entry.paused.length;
    entry.paused = paused;
  }

  get(id: string): DeploymentStatusEntry | undefined {
    return this.#entries.get(id);
  }

  remove(id: string): void {
    const entry = this.#entries.get(id);
    if (!entry) return;
    this.#perState[entry.state] -= 1;
    this.#paused -= entry.paused.length;
    this.#entries.delete(id);
  }

  /**
   * Entries sorted by namespace then name, as copies. Compared by code unit, not `localeCompare`
   * (ICU collation, which took seconds over 10,000 entries): namespaces are DNS labels, and names
   * are shown in a stable order either way.
   */
  list(): DeploymentStatusEntry[] {
    return [...this.#entries.values()]
      .map((e) => ({ ...e, paused: [...e.paused] }))
      .sort((a, b) => byCodeUnit(a.namespace ?? '', b.namespace ?? '') || byCodeUnit(a.name, b.name));
  }

  /** Objects left alone for a pause, over every deployment (the `mooring_paused_objects` metric). */
  pausedObjects(): number {
    return this.#paused;
  }

  /** Count per state, every state present (zeros included) so the metric series stay stable. */
  counts(): Record<DeploymentState, number> {
    return { ...this.#perState };
  }
}

function zeroPerState(): Record<DeploymentState, number> {
  return Object.fromEntries(DEPLOYMENT_STATES.map((s) => [s, 0])) as Record<DeploymentState, number>;
}

function byCodeUnit(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The pause list of an entry with nothing paused, shared by all of them (`list` copies it). */
const NONE_PAUSED: string[] = Object.freeze([]) as unknown as string[];

/** Change summaries kept for sharing, at most; past it the set starts over. */
const SUMMARIES_KEPT = 256;

/**
 * The texts many entries hold alike, one copy each: a summary such as `unchanged 12` (made anew
 * by every run), and the time of the latest record (a resync's runs finish many to a millisecond).
 */
class SharedTexts {
  readonly #summaries = new Map<string, string>();
  #atMs = Number.NaN;
  #at = '';

  time(atMs: number): string {
    if (atMs !== this.#atMs) {
      this.#atMs = atMs;
      this.#at = new Date(atMs).toISOString();
    }
    return this.#at;
  }

  summary(text: string): string {
    const known = this.#summaries.get(text);
    if (known !== undefined) return known;
    if (this.#summaries.size >= SUMMARIES_KEPT) this.#summaries.clear();
    this.#summaries.set(text, text);
    return text;
  }
}
