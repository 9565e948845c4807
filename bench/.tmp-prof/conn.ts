import { startKubeApi } from '../../src/sandbox/server.ts';
import { Agent, request } from 'undici';
import https from 'node:https';
const api = await startKubeApi({ namespaces: ['bench'] });
const agent = new Agent({ connect: { ca: api.caPem }, connections: 16 });
let n = 0;
const body = (i: number) =>
  JSON.stringify({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: `cm-${i}`, namespace: 'bench' },
    data: { key: 'v' },
  });
const t = performance.now();
await Promise.all(
  Array.from({ length: 16 }, async () => {
    while (n < 3000) {
      const i = n++;
      const r = await request(`${api.url}/api/v1/namespaces/bench/configmaps/cm-${i}?fieldManager=b`, {
        method: 'PATCH',
        headers: { 'content-type': 'application/apply-patch+yaml' },
        body: body(i),
        dispatcher: agent,
      });
      await r.body.dump();
    }
  }),
);
console.log('in-process creates/s', Math.round(3000 / ((performance.now() - t) / 1000)));
await agent.close();
await api.close();
