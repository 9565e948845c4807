/**
 * The agent as a child process (`node bin/mooring.js run`), the way the integration tests, the
 * reliability suite and the benchmark all start it: with Node from the `node` devDependency (the
 * version the project targets, whatever `node` is on PATH) and only the environment given.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AgentLogs } from './agent-logs.ts';

/** The repository root. */
export const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** How a process ended. */
export interface ProcessExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface MooringRunOptions {
  /** The child's whole environment: nothing else is inherited. */
  env: Record<string, string>;
  /** Arguments after `run`; default none (the settings then come from `env`). */
  args?: string[];
  /** Node flags before the script (e.g. `--cpu-prof`). */
  nodeFlags?: string[];
  /** Where stdout and stderr go: pipes (default) or an open file descriptor. */
  output?: 'pipe' | number;
  /** Repository root holding `bin/mooring.js` and `node_modules/.bin/node`; default this one. */
  root?: string;
  /** A cgroup directory the process runs in from its first instruction (its memory limit applies). */
  cgroup?: string;
}

/** A started `mooring run`. */
export interface MooringRun {
  child: ChildProcess;
  exited: Promise<ProcessExit>;
  running(): boolean;
  /** SIGKILL (no grace: the agent gets no chance to tidy up). */
  kill(): Promise<ProcessExit>;
  /** SIGTERM, then SIGKILL after `graceMs`; a `graceMs` of 0 or less sends SIGKILL at once. */
  stop(graceMs: number): Promise<ProcessExit>;
}

/** Spawns `mooring run` with `options.env` only. */
export function spawnMooringRun(options: MooringRunOptions): MooringRun {
  const root = options.root ?? REPO;
  const output = options.output ?? 'pipe';
  const node = path.join(root, 'node_modules', '.bin', 'node');
  const argv = [
    ...(options.nodeFlags ?? []),
    path.join(root, 'bin', 'mooring.js'),
    'run',
    ...(options.args ?? []),
  ];
  // In a cgroup: the shell joins it, then becomes node, so Node sizes its heap by the cgroup's limit.
  const [command, commandArgs] = options.cgroup
    ? ['/bin/sh', ['-c', 'echo $$ > "$0/cgroup.procs" && exec "$@"', options.cgroup, node, ...argv]]
    : [node, argv];
  const child = spawn(command, commandArgs, {
    cwd: root,
    env: options.env,
    stdio: ['ignore', output, output],
  });
  const exited = new Promise<ProcessExit>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const running = () => child.exitCode === null && child.signalCode === null;
  const kill = async () => {
    if (running()) child.kill('SIGKILL');
    return exited;
  };
  return {
    child,
    exited,
    running,
    kill,
    stop: async (graceMs) => {
      if (graceMs <= 0) return kill();
      if (!running()) return exited;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      const exit = await exited;
      clearTimeout(timer);
      return exit;
    },
  };
}

/** An agent whose output the test reads, with its ops endpoints. */
export interface AgentProcess extends Omit<MooringRun, 'stop'> {
  /** Everything this process wrote so far. */
  stdout(): string;
  stderr(): string;
  /** The ops server's base URL, once the agent logged it. */
  opsUrl: Promise<string>;
  /** SIGTERM, then SIGKILL after `graceMs` (default: the spawn's `stopGraceMs`; 0 kills at once). */
  stop(graceMs?: number): Promise<ProcessExit>;
  /** GET a JSON ops endpoint. */
  json<T = unknown>(endpoint: string): Promise<T>;
  text(endpoint: string): Promise<string>;
}

export interface SpawnAgentOptions {
  /** Also append this process's output here (kept across agent incarnations). */
  logs?: AgentLogs;
  /** Default of `stop()`'s grace before SIGKILL, ms; default 5000; 0 makes `stop()` a SIGKILL. */
  stopGraceMs?: number;
  /** Another install of mooring to run (see `MooringRunOptions.root`); default this repository. */
  root?: string;
}

/**
 * Spawns `mooring run` configured by `env` alone (set MOORING_OPS_PORT=0: the ops URL is read
 * from the agent's "ops endpoints listening" log line: its loopback URL, where /status answers).
 */
export function spawnAgent(env: Record<string, string>, options: SpawnAgentOptions = {}): AgentProcess {
  const run = spawnMooringRun({ env, ...(options.root ? { root: options.root } : {}) });
  const { child } = run;
  const { logs } = options;
  let out = '';
  let err = '';
  let resolveUrl: (url: string) => void = () => {};
  const opsUrl = new Promise<string>((resolve) => {
    resolveUrl = resolve;
  });
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
    out += chunk;
    if (logs) logs.stdout += chunk;
    // The loopback URL: the bound one (MOORING_OPS_HOST=127.0.0.1), or the one /status answers on
    // beside the pod IP the agent is bound to.
    const m = /"(?:url|statusUrl)":"(http:\/\/127\.0\.0\.1:\d+)"[^\n]*ops endpoints listening/.exec(out);
    if (m?.[1]) resolveUrl(m[1]);
  });
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    err += chunk;
    if (logs) logs.stderr += chunk;
  });
  const get = async (endpoint: string) =>
    fetch(`${await opsUrl}${endpoint}`, { signal: AbortSignal.timeout(5000) });
  return {
    ...run,
    stdout: () => out,
    stderr: () => err,
    opsUrl,
    stop: (graceMs = options.stopGraceMs ?? 5000) => run.stop(graceMs),
    json: async <T>(endpoint: string) => (await (await get(endpoint)).json()) as T,
    text: async (endpoint: string) => (await get(endpoint)).text(),
  };
}

/** The agent's /status entry of one deployment. */
export interface StatusEntry {
  id: string;
  name: string;
  state: string;
  reason: string | null;
  revision: string | null;
}
