/**
 * Benchmark: server-side applies per second the sandbox Kubernetes API sustains on one core.
 *
 * The server runs in a child process (one event loop: one core); this process drives it over
 * HTTPS (TLS verified with the sandbox's CA) with undici keep-alive connections. Three passes over
 * N small ConfigMaps: create by apply, no-op apply (nothing changes), and changing apply.
 *
 * Usage: `npx node bench/sandbox-apply.ts [--objects 10000] [--connections 16]`
 * Prints one line per pass with the wall-clock rate and the rate per second of server CPU time (the
 * server's `process.cpuUsage()`), which is what "on one core" means and does not depend on other
 * load on the machine; then a summary line `sandbox-apply: <n> applies per server CPU-second`.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { LABELS, MANAGED_BY } from '../src/labels.ts';
import { Agent, request } from 'undici';

interface Ready {
  url: string;
  caPem: string;
}

async function serve(): Promise<void> {
  const { startKubeApi } = await import('../src/sandbox/server.ts');
  const api = await startKubeApi({ namespaces: ['bench'] });
  process.send?.({ url: api.url, caPem: api.caPem } satisfies Ready);
  process.on('message', () => {
    const { user, system } = process.cpuUsage();
    process.send?.({ cpuMicros: user + system });
  });
  process.on('disconnect', () => {
    void api.close().then(() => process.exit(0));
  });
}

function configMap(i: number, value: string): string {
  return JSON.stringify({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name: `cm-${i}`,
      namespace: 'bench',
      labels: { [LABELS.managedBy]: MANAGED_BY, index: String(i) },
    },
    data: { key: value },
  });
}

/** The server process's total CPU time so far, in microseconds. */
function serverCpu(child: ChildProcess): Promise<number> {
  return new Promise((resolve) => {
    child.once('message', (m) => resolve((m as { cpuMicros: number }).cpuMicros));
    child.send('cpu');
  });
}

async function pass(
  label: string,
  child: ChildProcess,
  ready: Ready,
  agent: Agent,
  objects: number,
  connections: number,
  value: string,
): Promise<number> {
  let next = 0;
  let failures = 0;
  const worker = async (): Promise<void> => {
    while (next < objects) {
      const i = next++;
      const res = await request(
        `${ready.url}/api/v1/namespaces/bench/configmaps/cm-${i}?fieldManager=bench&force=true`,
        {
          method: 'PATCH',
          headers: { 'content-type': 'application/apply-patch+yaml', authorization: 'Bearer bench' },
          body: configMap(i, value),
          dispatcher: agent,
        },
      );
      await res.body.dump();
      if (res.statusCode >= 300) failures++;
    }
  };
  const cpuBefore = await serverCpu(child);
  const start = performance.now();
  await Promise.all(Array.from({ length: connections }, worker));
  const seconds = (performance.now() - start) / 1000;
  const cpuSeconds = ((await serverCpu(child)) - cpuBefore) / 1e6;
  const rate = Math.round(objects / seconds);
  const perCpu = Math.round(objects / cpuSeconds);
  process.stdout.write(
    `${label.padEnd(16)} ${objects} applies: ${seconds.toFixed(2)} s wall = ${rate}/s; server CPU ${cpuSeconds.toFixed(2)} s = ${perCpu} per CPU-second${failures ? ` (${failures} failed)` : ''}\n`,
  );
  if (failures > 0) throw new Error(`${failures} applies failed`);
  return perCpu;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      objects: { type: 'string', default: '10000' },
      connections: { type: 'string', default: '16' },
      serve: { type: 'boolean' },
    },
  });
  if (values.serve) return serve();
  const objects = Number(values.objects);
  const connections = Number(values.connections);
  const child = fork(fileURLToPath(import.meta.url), ['--serve'], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const ready = await new Promise<Ready>((resolve, reject) => {
    child.once('message', (m) => resolve(m as Ready));
    child.once('exit', (code) => reject(new Error(`server exited with ${code}`)));
  });
  const agent = new Agent({ connect: { ca: ready.caPem }, connections });
  try {
    const rates = [
      await pass('create (apply)', child, ready, agent, objects, connections, 'v1'),
      await pass('no-op apply', child, ready, agent, objects, connections, 'v1'),
      await pass('changing apply', child, ready, agent, objects, connections, 'v2'),
    ];
    process.stdout.write(
      `sandbox-apply: ${Math.min(...rates)} applies per server CPU-second (slowest pass; one server process = one core; ${connections} connections; load average ${loadavg()[0]?.toFixed(1)})\n`,
    );
  } finally {
    await agent.close();
    child.disconnect();
  }
}

await main();
