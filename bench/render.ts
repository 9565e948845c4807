/**
 * Renders per CPU-second of the full ResourceSpec (every field set; 14 objects) on one core:
 * `npx node bench/render.ts [--duration-ms N] [--yaml] [--json]`. The renderer is pure and
 * synchronous, so one Node thread is one core. Target: at least 5,000 renders per second.
 * `--yaml` also serializes each result to the YAML stream `mooring render` prints.
 */
import { parseArgs } from 'node:util';
import { renderDeployment } from '../src/render/index.ts';
import { YamlWriter } from '../src/render/serialize.ts';
import { GOLDEN_CASES } from '../test/render/fixtures.ts';

const TARGET_PER_SECOND = 5_000;

const { values } = parseArgs({
  options: {
    'duration-ms': { type: 'string', default: '3000' },
    yaml: { type: 'boolean', default: false },
    json: { type: 'boolean', default: false },
  },
});
const durationMs = Number(values['duration-ms']);
if (!Number.isFinite(durationMs) || durationMs <= 0) {
  process.stderr.write('bench/render: --duration-ms must be a positive number\n');
  process.exit(2);
}

const input = GOLDEN_CASES['full-spec']!();
// One writer for the run, as a caller that writes many streams keeps one.
const writer = new YamlWriter();
const once = values.yaml
  ? () => writer.stream(renderDeployment(input).objects).length
  : () => renderDeployment(input).objects.length;

const objects = renderDeployment(input).objects.length;
for (let i = 0; i < 2_000; i++) once(); // warm-up: let the JIT settle

// CPU time, not wall time: on a shared machine other processes take the core away from us, and
// what we want is what one core can do. Wall time is reported too.
let renders = 0;
const cpuStart = process.cpuUsage();
const start = process.hrtime.bigint();
const deadline = start + BigInt(Math.round(durationMs * 1e6));
let now = start;
while (now < deadline) {
  for (let i = 0; i < 100; i++) once();
  renders += 100;
  now = process.hrtime.bigint();
}
const cpu = process.cpuUsage(cpuStart);
const cpuSeconds = (cpu.user + cpu.system) / 1e6;
const wallSeconds = Number(now - start) / 1e9;
const perSecond = Math.round(renders / cpuSeconds);
const result = {
  renders,
  cpuSeconds: Number(cpuSeconds.toFixed(3)),
  wallSeconds: Number(wallSeconds.toFixed(3)),
  rendersPerCpuSecond: perSecond,
  rendersPerWallSecond: Math.round(renders / wallSeconds),
  microsecondsPerRender: Number(((cpuSeconds / renders) * 1e6).toFixed(1)),
  objectsPerRender: objects,
  yaml: values.yaml,
  target: TARGET_PER_SECOND,
  meetsTarget: perSecond >= TARGET_PER_SECOND,
};
if (values.json) process.stdout.write(`${JSON.stringify(result)}\n`);
else {
  process.stdout.write(
    `render (full ResourceSpec, ${objects} objects${values.yaml ? ', with YAML' : ''}): ` +
      `${perSecond.toLocaleString('en-US')} renders per CPU-second on one core ` +
      `(${result.microsecondsPerRender} µs each; ${result.rendersPerWallSecond.toLocaleString('en-US')}/s wall clock; ` +
      `target ${TARGET_PER_SECOND.toLocaleString('en-US')}: ${result.meetsTarget ? 'met' : 'NOT met'})\n`,
  );
}
