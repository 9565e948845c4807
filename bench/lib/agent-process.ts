/**
 * The agent as a child process (`node bin/mooring.js run`), measured from the outside as an
 * operator would: peak resident memory from `/proc/<pid>/status` (VmHWM, the kernel's high-water
 * mark, so sampling cannot miss a peak) and CPU seconds from `/proc/<pid>/stat`.
 */
import { type ChildProcess, execFileSync } from 'node:child_process';
import { fstatSync, openSync, readFileSync } from 'node:fs';
import { type MooringRun, spawnMooringRun } from '../../test/support/agent-process.ts';
import type { MemoryCgroup } from './memory-limit.ts';

export interface AgentProcessOptions {
  /** Repository root (where `bin/mooring.js` and `node_modules/.bin/node` are). */
  root: string;
  /** Arguments after `run`. */
  args: string[];
  /** Extra environment (merged over a minimal one). */
  env?: Record<string, string>;
  /** File that receives the agent's stdout and stderr. */
  logFile: string;
  /** Extra Node flags (e.g. `--cpu-prof`). */
  nodeFlags?: string[];
  /** Sampling period of /proc; default 100 ms. */
  sampleIntervalMs?: number;
  /** A memory cgroup to run in (removed once the agent has stopped). */
  cgroup?: MemoryCgroup;
}

export interface ProcSample {
  rssMib: number;
  hwmMib: number;
  cpuSeconds: number;
}

let clockTicks: number | undefined;
function ticksPerSecond(): number {
  if (clockTicks === undefined) {
    try {
      clockTicks = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    } catch {
      clockTicks = 100;
    }
  }
  return clockTicks;
}

/** Reads RSS, peak RSS and CPU time of a live process; undefined once it is gone. */
export function readProc(pid: number): ProcSample | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0);
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces) start at field 3; utime is 14, stime 15.
    const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(rest[11]) + Number(rest[12]);
    return { rssMib: kib('VmRSS') / 1024, hwmMib: kib('VmHWM') / 1024, cpuSeconds: ticks / ticksPerSecond() };
  } catch {
    return undefined;
  }
}

/** A running agent with its measurements. */
export class AgentProcess {
  readonly child: ChildProcess;
  readonly startedAt: number;
  readonly exited: Promise<number | null>;
  #run: MooringRun;
  #peakMib = 0;
  #last: ProcSample | undefined;
  #timer: NodeJS.Timeout;
  readonly cgroup: MemoryCgroup | undefined;

  readonly #logFile: string;
  /** Where this process's lines begin in its log (a log may be shared by successive agents). */
  readonly #logStart: number;

  constructor(options: AgentProcessOptions) {
    const log = openSync(options.logFile, 'a');
    this.#logFile = options.logFile;
    this.#logStart = fstatSync(log).size;
    this.startedAt = performance.now();
    this.cgroup = options.cgroup;
    this.#run = spawnMooringRun({
      root: options.root,
      nodeFlags: options.nodeFlags,
      ...(options.cgroup ? { cgroup: options.cgroup.dir } : {}),
      args: options.args,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...options.env },
      output: log,
    });
    this.child = this.#run.child;
    this.exited = this.#run.exited.then((exit) => exit.code);
    this.#timer = setInterval(() => this.sample(), options.sampleIntervalMs ?? 100);
    this.#timer.unref();
    void this.exited.then(() => clearInterval(this.#timer));
  }

  /** Takes one sample now (also done every sampling period). */
  sample(): ProcSample | undefined {
    const pid = this.child.pid;
    if (pid === undefined || this.child.exitCode !== null) return this.#last;
    const s = readProc(pid);
    if (s) {
      this.#last = s;
      this.#peakMib = Math.max(this.#peakMib, s.hwmMib, s.rssMib);
    }
    return this.#last;
  }

  /** Peak resident memory seen so far, MiB; null before any sample (an agent that died at once). */
  get peakRssMib(): number | null {
    return this.#last === undefined ? null : this.#peakMib;
  }

  /** CPU seconds (user + system) as of the latest sample; null before any sample. */
  cpuSeconds(): number | null {
    return this.sample()?.cpuSeconds ?? null;
  }

  get running(): boolean {
    return this.#run.running();
  }

  /** Times V8 stopped this process for want of heap ("JavaScript heap out of memory" in its log). */
  heapExhaustions(): number {
    const text = readFileSync(this.#logFile).subarray(this.#logStart).toString('utf8');
    return text.match(/JavaScript heap out of memory/g)?.length ?? 0;
  }

  /** SIGTERM, then SIGKILL after `graceMs`; resolves with the exit code. Samples a last time first. */
  async stop(graceMs = 30_000): Promise<number | null> {
    this.sample();
    const { code } = await this.#run.stop(graceMs);
    this.cgroup?.remove();
    return code;
  }
}
