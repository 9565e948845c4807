/**
 * The sandbox's own heap with N Deployments (and a Service each) settled by its controllers:
 * `node --expose-gc bench/sandbox-memory.ts --deployments N`. Prints heap used after a full GC.
 */
import { parseArgs } from 'node:util';
import { Agent, request } from 'undici';
import { startKubeApi } from '../src/sandbox/server.ts';

const { values } = parseArgs({ options: { deployments: { type: 'string', default: '1000' } } });
const n = Number(values.deployments);
const api = await startKubeApi({ namespaces: ['bench'] });
const dispatcher = new Agent({ connect: { ca: api.caPem }, connections: 8 });
async function post(path: string, body: unknown): Promise<void> {
  const res = await request(`${api.url}${path}`, {
    method: 'POST',
    body: JSON.stringify(body),
    headers: { 'content-type': 'application/json' },
    dispatcher,
  });
  await res.body.text();
  if (res.statusCode !== 201) throw new Error(`${path}: ${res.statusCode}`);
}
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with --expose-gc');
gc();
const before = process.memoryUsage().heapUsed;
for (let i = 0; i < n; i += 8) {
  await Promise.all(
    Array.from({ length: Math.min(8, n - i) }, async (_, j) => {
      const name = `app-${i + j}`;
      const labels = { app: name };
      await post('/apis/apps/v1/namespaces/bench/deployments', {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name, labels, annotations: { 'kubernetes.io/change-cause': `deploy ${name}` } },
        spec: {
          replicas: 2,
          selector: { matchLabels: labels },
          template: {
            metadata: { labels },
            spec: { containers: [{ name: 'app', image: `example/app:${i}` }] },
          },
        },
      });
      await post('/api/v1/namespaces/bench/services', {
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name, labels },
        spec: { selector: labels, ports: [{ port: 80 }] },
      });
    }),
  );
}
await new Promise((r) => setTimeout(r, 500));
for (let i = 0; i < 3; i++) gc();
const after = process.memoryUsage().heapUsed;
console.log(
  JSON.stringify({
    deployments: n,
    heap_before_mib: +(before / 2 ** 20).toFixed(1),
    heap_after_mib: +(after / 2 ** 20).toFixed(1),
    delta_mib: +((after - before) / 2 ** 20).toFixed(1),
  }),
);
await dispatcher.close();
await api.close();
