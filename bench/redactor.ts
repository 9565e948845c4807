/**
 * What the textual redactor costs the log: `node bench/redactor.ts [--values N] [--duration-ms N]
 * [--json]`. A pino logger at debug level (as the tests run the agent) writes realistic agent
 * lines to a discarding stream, alternately through the identity `streamWrite` hook and through
 * `Redactor.scrubJsonLine` (what the agent's logger uses) holding N secret values (default 3,000: 1,000 deployments with three secrets
 * each), in slices of equal length so both see the same machine; the ratio of the two rates is the
 * figure. One line in a hundred quotes a value (an API server's refusal), so the replacing path is
 * measured too. Also printed: the scrub alone, per line, how long the matcher took to build, and,
 * for comparison, one RegExp alternating the same forms.
 */
import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { parseArgs } from 'node:util';
import { pino } from 'pino';
import { REDACT_PATHS } from '../src/log.ts';
import { Redactor } from '../src/redact.ts';

const USAGE = 'usage: node bench/redactor.ts [--values N] [--duration-ms N] [--json]\n';

let values: { values: string; 'duration-ms': string; json: boolean };
try {
  values = parseArgs({
    options: {
      values: { type: 'string', default: '3000' },
      'duration-ms': { type: 'string', default: '4000' },
      json: { type: 'boolean', default: false },
    },
  }).values as typeof values;
} catch (err) {
  process.stderr.write(`bench/redactor: ${(err as Error).message}\n${USAGE}`);
  process.exit(2);
}
const count = Number(values.values);
const durationMs = Number(values['duration-ms']);
if (!Number.isInteger(count) || count < 1 || !(durationMs > 0)) {
  process.stderr.write(
    `bench/redactor: --values must be a whole number >= 1, --duration-ms positive\n${USAGE}`,
  );
  process.exit(2);
}

/** Secret values as deployments carry them: tokens, passwords, URLs with credentials. */
function secretValue(i: number): string {
  const r = randomBytes(18).toString('base64url');
  switch (i % 3) {
    case 0:
      return `sk_live_${r}`;
    case 1:
      return r.slice(0, 12 + (i % 12));
    default:
      return `postgres://app:${r}@db-${i}.example.com:5432/app`;
  }
}

const deployments = Math.ceil(count / 3);
const secrets = Array.from({ length: count }, (_, i) => secretValue(i));
const redactor = new Redactor();
const buildStart = process.hrtime.bigint();
for (let d = 0; d < deployments; d++) redactor.set(`deployment-${d}`, secrets.slice(d * 3, d * 3 + 3));
const buildMs = Number(process.hrtime.bigint() - buildStart) / 1e6;

const sink = new Writable({
  write(_chunk, _encoding, callback) {
    callback();
  },
});
const logger = (hook: (s: string) => string) =>
  pino(
    {
      level: 'debug',
      base: { listenerId: '3f2c1d4e-5a6b-4c7d-8e9f-0a1b2c3d4e5f', identity: 'mooring-6d9f7c-x2k4p' },
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      hooks: { streamWrite: hook },
    },
    sink,
  );
const identity = logger((s) => s);
const scrubbed = logger((s) => redactor.scrubJsonLine(s));

/** The lines the agent writes most, one in a hundred quoting a secret (a webhook's refusal). */
function writeLines(log: pino.Logger, n: number, offset: number): void {
  for (let k = 0; k < n; k++) {
    const i = offset + k;
    const id = `0b8c${(i % 1000).toString(16).padStart(4, '0')}-5d1e-4f2a-9b3c-7d8e9f0a1b2c`;
    if (i % 100 === 99) {
      const quoted = secrets[i % secrets.length];
      log.error(
        {
          deploymentId: id,
          code: 'MOORING_E_KUBE_FORBIDDEN',
          err: {
            type: 'MooringError',
            message: `Secret/apps/app-${i % 1000}-env: apply refused (403): admission webhook "validation.gatekeeper.sh" denied the request: env value "${quoted}" is not allowed`,
          },
        },
        'reconcile refused; parked until the deployment changes',
      );
    } else if (i % 3 === 0) {
      log.info(
        {
          deploymentId: id,
          revisionId: `9a7b${(i % 1000).toString(16).padStart(4, '0')}-1c2d-4e3f-8a9b-0c1d2e3f4a5b`,
          changes: 'configured 1, unchanged 11',
          durationMs: 42,
          result: 'success',
          state: 'Progressing',
        },
        'reconciled',
      );
    } else {
      log.debug(
        {
          deploymentId: id,
          revisionId: `9a7b${(i % 1000).toString(16).padStart(4, '0')}-1c2d-4e3f-8a9b-0c1d2e3f4a5b`,
          changes: 'unchanged 12',
          durationMs: 3,
          result: 'success',
          state: 'Ready',
        },
        'reconciled',
      );
    }
  }
}

/** Lines per CPU-second of each logger, measured in alternating slices of equal length. */
function measure(): { identity: number; scrubbed: number } {
  const batch = 1_000;
  const cpu = { identity: 0, scrubbed: 0 };
  const lines = { identity: 0, scrubbed: 0 };
  const deadline = Date.now() + durationMs;
  let offset = 0;
  while (Date.now() < deadline) {
    for (const [name, log] of [
      ['identity', identity],
      ['scrubbed', scrubbed],
    ] as const) {
      const start = process.cpuUsage();
      writeLines(log, batch, offset);
      const used = process.cpuUsage(start);
      cpu[name] += (used.user + used.system) / 1e6;
      lines[name] += batch;
    }
    offset += batch;
  }
  return { identity: lines.identity / cpu.identity, scrubbed: lines.scrubbed / cpu.scrubbed };
}

/** The lines as the stream receives them (2,000 of them). */
function lineTexts(): string[] {
  const texts: string[] = [];
  const collect = pino(
    {
      level: 'debug',
      timestamp: pino.stdTimeFunctions.isoTime,
      hooks: {
        streamWrite: (s) => {
          texts.push(s);
          return s;
        },
      },
    },
    sink,
  );
  writeLines(collect, 2_000, 0);
  return texts;
}

/** CPU microseconds per line of `scrub` over `texts`. */
function microsPerLine(texts: readonly string[], scrub: (s: string) => string, rounds: number): number {
  const start = process.cpuUsage();
  for (let r = 0; r < rounds; r++) for (const t of texts) scrub(t);
  const used = process.cpuUsage(start);
  return (used.user + used.system) / (rounds * texts.length);
}

/** The scrub alone over the same lines as text, per line (microseconds). */
function scrubAlone(texts: readonly string[]): { microsPerLine: number; replaced: number } {
  let replaced = 0;
  for (const t of texts) if (redactor.scrubJsonLine(t) !== t) replaced++;
  return {
    microsPerLine: microsPerLine(texts, (t) => redactor.scrubJsonLine(t), 50),
    replaced: replaced / texts.length,
  };
}

/**
 * The obvious alternative, for comparison: one RegExp alternating every form (escaped, longest
 * first). V8 tries the alternatives one after another at each position of the text.
 */
function regexAlternation(texts: readonly string[]): { microsPerLine: number; compileMs: number } {
  const forms = [
    ...new Set(
      secrets.flatMap((v) => [v, JSON.stringify(v).slice(1, -1), Buffer.from(v).toString('base64')]),
    ),
  ];
  forms.sort((a, b) => b.length - a.length);
  const start = process.hrtime.bigint();
  const re = new RegExp(forms.map((f) => f.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')).join('|'), 'g');
  texts[0]?.replace(re, '[redacted]'); // V8 compiles a RegExp on first use
  const compileMs = Number(process.hrtime.bigint() - start) / 1e6;
  return { microsPerLine: microsPerLine(texts, (t) => t.replace(re, '[redacted]'), 3), compileMs };
}

writeLines(identity, 20_000, 0); // warm-up: let the JIT settle
writeLines(scrubbed, 20_000, 0);
const rates = measure();
const texts = lineTexts();
const alone = scrubAlone(texts);
const regex = regexAlternation(texts);
const result = {
  values: redactor.size,
  forms: redactor.forms,
  buildMs: Number(buildMs.toFixed(1)),
  identityLinesPerCpuSecond: Math.round(rates.identity),
  scrubbedLinesPerCpuSecond: Math.round(rates.scrubbed),
  ratio: Number((rates.scrubbed / rates.identity).toFixed(3)),
  scrubMicrosPerLine: Number(alone.microsPerLine.toFixed(2)),
  linesQuotingASecret: alone.replaced,
  regexMicrosPerLine: Number(regex.microsPerLine.toFixed(2)),
  regexCompileMs: Number(regex.compileMs.toFixed(1)),
};
if (values.json) process.stdout.write(`${JSON.stringify(result)}\n`);
else {
  const n = (x: number) => x.toLocaleString('en-US');
  process.stdout.write(
    `redactor, ${n(result.values)} values (${n(result.forms)} forms, built in ${result.buildMs} ms): ` +
      `${n(result.scrubbedLinesPerCpuSecond)} log lines per CPU-second scrubbed, ` +
      `${n(result.identityLinesPerCpuSecond)} through the identity hook (ratio ${result.ratio}); ` +
      `the scrub alone ${result.scrubMicrosPerLine} µs per line ` +
      `(one RegExp alternating the same forms: ${result.regexMicrosPerLine} µs per line, compiled in ${result.regexCompileMs} ms)\n`,
  );
}
