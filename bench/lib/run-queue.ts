/**
 * Time spent ready to run but waiting for a core, from Linux's per-thread scheduler statistics
 * (`/proc/<pid>/task/<tid>/schedstat`: time on a core, time waiting on a run queue, timeslices; in
 * nanoseconds). On the 2-core benchmark machine the agent, the sandbox and both processes' V8
 * helper threads (compilers, garbage collection) compete for the cores while the agent converges;
 * this shows how much of the sandbox's time went to waiting for one. Undefined where the kernel
 * does not provide the file (other systems, kernels without schedstats).
 */
import { readdirSync, readFileSync } from 'node:fs';

/** The run-queue wait in a `schedstat` line, in seconds; undefined when the line is not one. */
export function parseRunQueueWait(line: string): number | undefined {
  const fields = line.trim().split(/\s+/);
  if (fields.length < 3 || !fields.every((f) => /^\d+$/.test(f))) return undefined;
  return Number(fields[1]) / 1e9;
}

function readWait(file: string): number | undefined {
  try {
    return parseRunQueueWait(readFileSync(file, 'utf8'));
  } catch {
    return undefined;
  }
}

/** The calling thread's run-queue wait so far (the harness's main thread is the sandbox's event loop). */
export function threadRunQueueWait(): number | undefined {
  return readWait('/proc/thread-self/schedstat');
}

/** Starts measuring the calling thread's run-queue wait: the returned function gives it since then. */
export function threadRunQueueWaitFromNow(): () => number | undefined {
  const before = threadRunQueueWait();
  return () => {
    const now = threadRunQueueWait();
    return before === undefined || now === undefined ? undefined : now - before;
  };
}

/** The run-queue wait of every live thread of a process, summed; undefined when none can be read. */
export function processRunQueueWait(pid: number): number | undefined {
  let tasks: string[];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return undefined;
  }
  let total: number | undefined;
  for (const tid of tasks) {
    // A thread that ended since the listing is skipped (its time is lost with it).
    const wait = readWait(`/proc/${pid}/task/${tid}/schedstat`);
    if (wait !== undefined) total = (total ?? 0) + wait;
  }
  return total;
}
