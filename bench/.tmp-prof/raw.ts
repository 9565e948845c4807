import https from 'node:https';
import { Agent, request } from 'undici';
import { createServingCertificate } from '../../src/sandbox/tls.ts';
const cert = await createServingCertificate([]);
const payload = JSON.stringify({ a: 'x'.repeat(1500) });
const server = https.createServer({ key: cert.keyPem, cert: cert.certPem, noDelay: true }, (req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(payload) });
    res.end(payload);
  });
});
await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
const port = (server.address() as any).port;
const agent = new Agent({ connect: { ca: cert.caPem }, connections: 16 });
let n = 0;
const t = performance.now();
await Promise.all(
  Array.from({ length: 16 }, async () => {
    while (n < 3000) {
      n++;
      const r = await request(`https://127.0.0.1:${port}/x`, { method: 'GET', dispatcher: agent });
      await r.body.dump();
    }
  }),
);
console.log('raw https req/s', Math.round(3000 / ((performance.now() - t) / 1000)));
await agent.close();
server.close();
server.closeAllConnections();
