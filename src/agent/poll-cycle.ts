/**
 * One poll as data: what the poller hands on, once, when a poll's listing is complete or, when a
 * deployment changed, as soon as the page listing it is in (early-changes.ts). The deployments
 * arrive in `desired` as their revisions come in, so that work on a new or changed one need not
 * wait for every other revision read (a cold start's first applies used to wait for 1,000);
 * `snapshot` then holds all of them, complete. A poll that fails ends `desired` and rejects
 * `snapshot` with its failure: a consumer never acts on a partial view as if it were whole. A poll
 * whose listing fails before any change was handed on makes no cycle at all.
 */
import type { RejectedRecord } from '../contract/index.ts';
import type { DeploymentRecord, RevisionRecord } from '../contract/index.ts';

/** One deployment as the agent should make it, with the revision it runs. */
export interface DesiredDeployment {
  deployment: DeploymentRecord;
  /** The chosen revision, when there is one to run and it was read. */
  revision: RevisionRecord | undefined;
  /**
   * The chosen revision's id when it was not read: a restart memo knew its status and digest
   * (ADR 0010), so `hash` is known without it. Whatever renders the deployment reads it first
   * (`DesiredResolver.load`); `revision` is then undefined.
   */
  pendingRevision?: string;
  /** sha256 of deployment + revision: a change means "reconcile now" (and unparks). Internal only. */
  hash: string;
  /** Set when the agent must not act on this deployment (a coded reason, no secret). */
  refused?: { code: string; message: string };
  /**
   * Set when the heap was short as its poll resolved it (the reason it waits): `deployment` is
   * its sketch (record-sketch.ts), its revision was not read and `hash` is empty; the agent parks
   * it, and a later poll resolves it again.
   */
  waitsForMemory?: string;
}

/** A complete view of this listener's deployments at one time. */
export interface Snapshot {
  deployments: DesiredDeployment[];
  /** Records refused by the client's tolerant parsing (malformed), with reasons. */
  rejected: RejectedRecord[];
  atMs: number;
}

/** One poll, from its complete listing on. */
export interface PollCycle {
  /**
   * Each deployment's desired state as soon as its revision is in, each once; ends when all are
   * in, or throws the poll's failure. Read once.
   */
  readonly desired: AsyncIterable<DesiredDeployment>;
  /** Every deployment of the poll, once all are in; rejects with the poll's failure. */
  readonly snapshot: Promise<Snapshot>;
}

/** The poller's side of a cycle: it fills what the consumer reads. */
export interface PollCycleWriter {
  readonly cycle: PollCycle;
  /** One deployment's desired state is in. */
  ready(d: DesiredDeployment): void;
  /** Every deployment is in: `desired` ends and `snapshot` resolves. */
  complete(snapshot: Snapshot): void;
  /** The poll failed: `desired` throws `err` once drained, and `snapshot` rejects with it. */
  fail(err: unknown): void;
}

/** A new, empty cycle and the means to fill it. */
export function openPollCycle(): PollCycleWriter {
  const ready: DesiredDeployment[] = [];
  let ended: { ok: true } | { ok: false; err: unknown } | undefined;
  let wake: (() => void) | undefined;
  let resolveSnapshot!: (s: Snapshot) => void;
  let rejectSnapshot!: (err: unknown) => void;
  const snapshot = new Promise<Snapshot>((resolve, reject) => {
    resolveSnapshot = resolve;
    rejectSnapshot = reject;
  });
  // A consumer that reads only `desired` learns of a failure there: no unhandled rejection.
  snapshot.catch(() => undefined);
  const signal = () => {
    const w = wake;
    wake = undefined;
    w?.();
  };
  async function* desired(): AsyncGenerator<DesiredDeployment> {
    for (;;) {
      const next = ready.shift();
      if (next !== undefined) {
        yield next;
        continue;
      }
      if (ended) {
        if (!ended.ok) throw ended.err;
        return;
      }
      await new Promise<void>((resolve) => {
        wake = resolve;
      });
    }
  }
  return {
    cycle: { desired: desired(), snapshot },
    ready(d) {
      if (ended) return;
      ready.push(d);
      signal();
    },
    complete(s) {
      if (ended) return;
      ended = { ok: true };
      signal();
      resolveSnapshot(s);
    },
    fail(err) {
      if (ended) return;
      ended = { ok: false, err };
      signal();
      rejectSnapshot(err);
    },
  };
}
