/**
 * The Pod printer's columns: READY counts ready containers (restartable init containers included),
 * STATUS is the reason kubectl users know (`CrashLoopBackOff`, `Init:0/1`, `Terminating`...),
 * RESTARTS carries the time of the last restart, and -o wide adds IP, NODE, NOMINATED NODE and
 * READINESS GATES.
 */
import { humanDuration } from './human-duration.ts';
import { AGE, type Column, col, list, NAME, type Obj, obj, spec, status, str, wide } from './table-column.ts';
import type { StoredObject } from './types.ts';

interface PodCells {
  ready: string;
  reason: string;
  restarts: string;
}

const restartable = (c: Obj | undefined): boolean => c?.restartPolicy === 'Always';

/** The latest `lastState.terminated.finishedAt` of `statuses`, in ms (0 when none). */
function lastRestart(statuses: Obj[]): number {
  let latest = 0;
  for (const s of statuses) {
    const at = Date.parse(str(obj(obj(obj(s.lastState).terminated)).finishedAt));
    if (!Number.isNaN(at) && at > latest) latest = at;
  }
  return latest;
}

/** The reason a terminated container gives: its reason, else its signal or exit code. */
function terminatedReason(t: Obj, prefix: string): string {
  if (str(t.reason) !== '') return `${prefix}${str(t.reason)}`;
  return typeof t.signal === 'number' && t.signal !== 0
    ? `${prefix}Signal:${t.signal}`
    : `${prefix}ExitCode:${typeof t.exitCode === 'number' ? t.exitCode : 0}`;
}

function conditionTrue(st: Obj, type: string): boolean {
  return list(st.conditions).some((c) => c.type === type && c.status === 'True');
}

/** The printer's walk over init and app container statuses. */
function podCells(pod: StoredObject, now: Date): PodCells {
  const sp = spec(pod);
  const st = status(pod);
  const inits = new Map(list(sp.initContainers).map((c) => [str(c.name), c]));
  const total = list(sp.containers).length + [...inits.values()].filter(restartable).length;
  let ready = 0;
  let restarts = 0;
  let reason = str(st.reason) || str(st.phase);
  if (list(st.conditions).some((c) => c.type === 'PodScheduled' && c.reason === 'SchedulingGated'))
    reason = 'SchedulingGated';
  // As the printer, stop at the first init container still running or failed.
  const initStatuses: Obj[] = [];
  let initializing = false;
  list(st.initContainerStatuses).forEach((c, i) => {
    if (initializing) return;
    initStatuses.push(c);
    restarts += typeof c.restartCount === 'number' ? c.restartCount : 0;
    const state = obj(c.state);
    const terminated = state.terminated === undefined ? undefined : obj(state.terminated);
    const waiting = obj(state.waiting);
    if (terminated && terminated.exitCode === 0) return;
    if (restartable(inits.get(str(c.name))) && c.started === true) {
      if (c.ready === true) ready++;
      return;
    }
    initializing = true;
    if (terminated) reason = terminatedReason(terminated, 'Init:');
    else if (str(waiting.reason) !== '' && waiting.reason !== 'PodInitializing')
      reason = `Init:${str(waiting.reason)}`;
    else reason = `Init:${i}/${inits.size}`;
  });
  let last = lastRestart(initStatuses);
  if (!initializing || conditionTrue(st, 'Initialized')) {
    const restartableStatuses = initStatuses.filter((c) => restartable(inits.get(str(c.name))));
    restarts = restartableStatuses.reduce(
      (n, c) => n + (typeof c.restartCount === 'number' ? c.restartCount : 0),
      0,
    );
    last = lastRestart(restartableStatuses);
    let running = false;
    const statuses = list(st.containerStatuses);
    for (let i = statuses.length - 1; i >= 0; i--) {
      const c = statuses[i] as Obj;
      restarts += typeof c.restartCount === 'number' ? c.restartCount : 0;
      last = Math.max(last, lastRestart([c]));
      const state = obj(c.state);
      const waiting = obj(state.waiting);
      const terminated = state.terminated === undefined ? undefined : obj(state.terminated);
      if (str(waiting.reason) !== '') reason = str(waiting.reason);
      else if (terminated) reason = terminatedReason(terminated, '');
      else if (c.ready === true && state.running !== undefined) {
        running = true;
        ready++;
      }
    }
    if (reason === 'Completed' && running) reason = conditionTrue(st, 'Ready') ? 'Running' : 'NotReady';
  }
  const terminal = st.phase === 'Succeeded' || st.phase === 'Failed';
  if (pod.metadata.deletionTimestamp && st.reason === 'NodeLost') reason = 'Unknown';
  else if (pod.metadata.deletionTimestamp && !terminal) reason = 'Terminating';
  const restartText =
    restarts !== 0 && last > 0
      ? `${restarts} (${humanDuration(now.getTime() - last)} ago)`
      : String(restarts);
  return { ready: `${ready}/${total}`, reason, restarts: restartText };
}

// The printer computes all three cells in one pass; a list prints each pod once per column.
const memo = new WeakMap<StoredObject, { now: Date; cells: PodCells }>();
function cells(pod: StoredObject, now: Date): PodCells {
  const hit = memo.get(pod);
  if (hit && hit.now === now) return hit.cells;
  const computed = podCells(pod, now);
  memo.set(pod, { now, cells: computed });
  return computed;
}

/** `ready/gates` over the pod's readiness gates, `<none>` without any. */
function readinessGates(pod: StoredObject): string {
  const gates = list(spec(pod).readinessGates);
  if (gates.length === 0) return '<none>';
  const conditions = list(status(pod).conditions);
  const met = gates.filter((g) => conditions.find((c) => c.type === g.conditionType)?.status === 'True');
  return `${met.length}/${gates.length}`;
}

const orNone = (v: unknown): string => (str(v) === '' ? '<none>' : str(v));

export const POD_COLUMNS: Column[] = [
  NAME,
  col('Ready', (o, now) => cells(o, now).ready),
  col('Status', (o, now) => cells(o, now).reason),
  col('Restarts', (o, now) => cells(o, now).restarts),
  AGE,
  wide('IP', (o) => orNone(list(status(o).podIPs)[0]?.ip)),
  wide('Node', (o) => orNone(spec(o).nodeName)),
  wide('Nominated Node', (o) => orNone(status(o).nominatedNodeName)),
  wide('Readiness Gates', readinessGates),
];
