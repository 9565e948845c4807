/**
 * The two floors of the convergence ratio, alternated pair by pair in one sitting: the bare client
 * (`bench/ratio-floor.ts`: prepared bodies applied, no control plane) and the pull floor
 * (`bench/pull-floor.ts`: only what any pull agent of the interface must do), one round each per
 * pair, so that a drift of the machine within the sitting falls on both alike. The pull client
 * runs with the image's heap flags for the chart's default memory limit unless
 * `--client-node-option` says otherwise. Prints each pair's quotient and their medians; an agent's
 * `convergence_s` from the same sitting (`npm run bench -- --skip-kubectl`) over the bare median is
 * the figure the ratio target is about.
 *
 *   node bench/floor-pairs.ts --deployments 1000 [--pairs 5] [--json FILE] [--client-node-option X ...]
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { describeMachine, median, round, roundOrNull } from './lib/figures.ts';
import { absoluteHeapFlags, imageRuntimeEnv } from './lib/image-runtime.ts';
import { repoChartMemoryLimitMib } from './lib/memory-limit.ts';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(HERE, '..');

interface FloorPair {
  bare_s: number;
  bare_cpu_s: number;
  pull_s: number;
  pull_cpu_s: number;
  pull_over_bare: number;
}

/** The image's heap flags for the chart's default limit: how the pull client runs by default. */
function imageHeapFlags(): string[] {
  const nodeOptions = imageRuntimeEnv(readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8')).NODE_OPTIONS ?? '';
  return absoluteHeapFlags(nodeOptions, repoChartMemoryLimitMib(ROOT));
}

/** Runs one floor script to its end (its progress on our stderr) and returns its JSON. */
function runFloor(script: string, args: string[]): Promise<Record<string, unknown>> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'mooring-floor-'));
  const file = path.join(dir, 'result.json');
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(HERE, script), ...args, '--json', file], {
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    child.on('error', reject);
    child.on('exit', (code) => {
      try {
        if (code !== 0) throw new Error(`${script} exited with ${code}`);
        resolve(JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>);
      } catch (err) {
        reject(err);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  });
}

/** The first (only) round of a floor's JSON. */
function firstRound(result: Record<string, unknown>): Record<string, number> {
  const rounds = result.rounds as Record<string, number>[] | undefined;
  const row = rounds?.[0];
  if (!row) throw new Error('a floor gave no round');
  return row;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      deployments: { type: 'string' },
      pairs: { type: 'string', default: '3' },
      json: { type: 'string' },
      'client-node-option': { type: 'string', multiple: true },
    },
  });
  const deployments = Number(values.deployments);
  const pairs = Number(values.pairs);
  if (![deployments, pairs].every((n) => Number.isInteger(n) && n >= 1)) {
    process.stderr.write(
      'usage: node bench/floor-pairs.ts --deployments N (>= 1) [--pairs K (>= 1)] [--json FILE] [--client-node-option X ...]\n',
    );
    process.exit(2);
  }
  const clientFlags = values['client-node-option'] ?? imageHeapFlags();
  const say = (line: string) => process.stderr.write(`[floor-pairs] ${line}\n`);
  say(
    `${pairs} pairs of ${deployments} deployments; the pull client with ${clientFlags.join(' ') || "Node's defaults"}`,
  );
  const oneRound = ['--deployments', String(deployments), '--rounds', '1'];
  const rows: FloorPair[] = [];
  for (let p = 0; p < pairs; p++) {
    const bare = firstRound(await runFloor('ratio-floor.ts', [...oneRound, '--skip-kubectl']));
    const pull = firstRound(
      await runFloor('pull-floor.ts', [...oneRound, ...clientFlags.map((f) => `--client-node-option=${f}`)]),
    );
    const row: FloorPair = {
      bare_s: Number(bare.bare_s),
      bare_cpu_s: Number(bare.bare_cpu_s),
      pull_s: Number(pull.pull_s),
      pull_cpu_s: Number(pull.pull_cpu_s),
      pull_over_bare: round(Number(pull.pull_s) / Number(bare.bare_s), 3),
    };
    rows.push(row);
    say(`pair ${p + 1}: bare ${row.bare_s} s, pull ${row.pull_s} s: pull over bare ${row.pull_over_bare}`);
  }
  const quotients = rows.map((r) => r.pull_over_bare);
  const result = {
    deployments,
    client_node_options: clientFlags,
    pairs: rows,
    bare_s_median: roundOrNull(median(rows.map((r) => r.bare_s)), 3),
    pull_s_median: roundOrNull(median(rows.map((r) => r.pull_s)), 3),
    pull_over_bare_median: roundOrNull(median(quotients), 3),
    pull_over_bare_min: Math.min(...quotients),
    pull_over_bare_max: Math.max(...quotients),
    machine: describeMachine(),
    load_average: os.loadavg(),
  };
  say(
    `pull over bare: median ${result.pull_over_bare_median} (${result.pull_over_bare_min}-${result.pull_over_bare_max}); bare median ${result.bare_s_median} s`,
  );
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  if (values.json) writeFileSync(values.json, `${JSON.stringify(result, null, 2)}\n`);
}

await main();
