/**
 * The agent under a memory limit, as the Helm chart runs it: a memory cgroup of its own with the
 * chart's `resources.limits.memory`, joined before Node starts, so that Node sizes its heap by the
 * limit (as it does in a container) and the kernel enforces it. Without a limit Node sizes its heap
 * by the machine's memory (a quarter of it) and lets garbage pile up accordingly, which is not what
 * a cluster sees.
 *
 * Creating a cgroup needs write access to the cgroup filesystem (root on most machines). Where that
 * is not possible the agent runs without a limit and the reason is reported, never hidden.
 */
import { mkdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';

const CGROUP_ROOT = '/sys/fs/cgroup';

/** A cgroup the agent can be started in, with what the kernel measured of it. */
export interface MemoryCgroup {
  dir: string;
  limitMib: number;
  /** The cgroup's peak charged memory (anonymous memory and page cache it first touched). */
  peakMib(): number | undefined;
  /** How many processes the kernel killed for exceeding the limit. */
  oomKills(): number;
  remove(): void;
}

function readNumber(file: string): number | undefined {
  try {
    const n = Number(readFileSync(file, 'utf8').trim());
    return Number.isFinite(n) ? n : undefined;
  } catch {
    return undefined;
  }
}

function oomKillsIn(file: string): number {
  try {
    const m = /^oom_kill (\d+)$/m.exec(readFileSync(file, 'utf8'));
    return m ? Number(m[1]) : 0;
  } catch {
    return 0;
  }
}

/** This process's memory cgroup directory and its version, from /proc/self/cgroup. */
function ownMemoryCgroup(): { dir: string; v2: boolean } | string {
  let lines: string[];
  try {
    lines = readFileSync('/proc/self/cgroup', 'utf8').trim().split('\n');
  } catch {
    return 'no /proc/self/cgroup (not Linux?)';
  }
  for (const line of lines) {
    const [, controllers, where] = line.split(':');
    if (controllers?.split(',').includes('memory') && where !== undefined)
      return { dir: path.join(CGROUP_ROOT, 'memory', where), v2: false };
  }
  const unified = lines.find((l) => l.startsWith('0::'));
  if (unified) {
    const dir = path.join(CGROUP_ROOT, unified.slice(3));
    try {
      if (readFileSync(path.join(dir, 'cgroup.subtree_control'), 'utf8').includes('memory'))
        return { dir, v2: true };
    } catch {}
    return 'the memory controller is not enabled for child cgroups (cgroup v2)';
  }
  return 'no memory cgroup controller';
}

/** A fresh memory cgroup limited to `limitMib`, or the reason there cannot be one. */
export function createMemoryCgroup(name: string, limitMib: number): MemoryCgroup | string {
  const own = ownMemoryCgroup();
  if (typeof own === 'string') return own;
  const dir = path.join(own.dir, `mooring-bench-${process.pid}-${name}`);
  const bytes = String(limitMib * 2 ** 20);
  try {
    mkdirSync(dir);
    if (own.v2) writeFileSync(path.join(dir, 'memory.max'), bytes);
    else writeFileSync(path.join(dir, 'memory.limit_in_bytes'), bytes);
  } catch (err) {
    try {
      rmdirSync(dir);
    } catch {}
    return `cannot create a memory cgroup under ${own.dir}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`;
  }
  const peakFile = path.join(dir, own.v2 ? 'memory.peak' : 'memory.max_usage_in_bytes');
  const eventsFile = path.join(dir, own.v2 ? 'memory.events' : 'memory.oom_control');
  let lastPeak: number | undefined;
  let lastOom = 0;
  const peakMib = () => {
    const bytes = readNumber(peakFile);
    if (bytes !== undefined) lastPeak = bytes / 2 ** 20;
    return lastPeak;
  };
  const oomKills = () => {
    lastOom = Math.max(lastOom, oomKillsIn(eventsFile));
    return lastOom;
  };
  return {
    dir,
    limitMib,
    peakMib,
    oomKills,
    remove() {
      // Read last, while the files still exist.
      peakMib();
      oomKills();
      try {
        rmdirSync(dir);
      } catch {}
    },
  };
}

/** The Helm chart's default memory limit in MiB (`resources.limits.memory`: `256Mi`, `1Gi`, bytes). */
export function chartMemoryLimitMib(valuesYaml: string): number | undefined {
  const values = parse(valuesYaml) as { resources?: { limits?: { memory?: unknown } } } | null;
  const m = /^(\d+)(Mi|Gi)?$/.exec(String(values?.resources?.limits?.memory ?? ''));
  if (!m) return undefined;
  const n = Number(m[1]);
  return m[2] === 'Gi' ? n * 1024 : m[2] === 'Mi' ? n : n / 2 ** 20;
}

/** The chart's default memory limit in MiB, read from the repository at `root`; throws when it has none. */
export function repoChartMemoryLimitMib(root: string): number {
  const limitMib = chartMemoryLimitMib(
    readFileSync(path.join(root, 'charts', 'mooring', 'values.yaml'), 'utf8'),
  );
  if (limitMib === undefined) throw new Error('charts/mooring/values.yaml has no resources.limits.memory');
  return limitMib;
}
