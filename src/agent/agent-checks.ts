/**
 * The agent's liveness and readiness, from what the loops show: live unless the poll loop is
 * stuck (far past its own schedule, or inside one cycle for far longer than any healthy cycle
 * takes); ready once started and registered while Kubernetes answers. A standby is both.
 */
import type { Check } from '../ops/server.ts';
import type { Poller } from './poller.ts';

/** Liveness at `now`; `poller` is the current term's (undefined on a standby). */
export function pollLoopHealth(
  now: number,
  pollIntervalMs: number,
  poller: Pick<Poller, 'nextDueAtMs' | 'cycleStartedAtMs'> | undefined,
): Check {
  const due = poller?.nextDueAtMs;
  const busySince = poller?.cycleStartedAtMs;
  const overdueMs = due === undefined ? 0 : now - due;
  const busyMs = busySince === undefined ? 0 : now - busySince;
  let detail: string | undefined;
  if (overdueMs > Math.max(60_000, 3 * pollIntervalMs)) {
    detail = `poll loop overdue by ${Math.round(overdueMs / 1000)} s`;
  } else if (busyMs > Math.max(300_000, 5 * pollIntervalMs)) {
    detail = `one poll cycle has been running for ${Math.round(busyMs / 1000)} s`;
  }
  return {
    ok: detail === undefined,
    checks: {
      pollLoop: detail
        ? { ok: false, detail }
        : { ok: true, detail: poller ? 'running' : 'standby (not the leader)' },
    },
  };
}

/**
 * Readiness: start-up passed (`registered`), Kubernetes reachable; says whether this replica leads
 * and, given `memory` (memory-budget.ts), whether its heap holds the listener. The memory check
 * informs and never makes the agent unready: readiness gates rollouts, and a rollout is how a
 * larger memory limit arrives.
 */
export function readiness(
  registered: boolean,
  kubeOk: boolean,
  leader: boolean,
  memory?: { ok: boolean; detail: string },
): Check {
  return {
    ok: registered && kubeOk,
    checks: {
      registered: registered ? { ok: true } : { ok: false, detail: 'start-up checks not passed yet' },
      kubernetes: kubeOk ? { ok: true } : { ok: false, detail: 'Kubernetes API unreachable' },
      leader: { ok: true, detail: leader ? 'leader' : 'standby' },
      ...(memory ? { memory } : {}),
    },
  };
}
