import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { instrumentKubeRequests, kubeVerb } from '../../src/ops/kube-requests.ts';

describe('kubeVerb', () => {
  it.each([
    ['GET', '/api/v1/namespaces/default', undefined, 'get'],
    ['GET', '/api/v1/namespaces/a/secrets', undefined, 'list'],
    ['GET', '/api/v1/namespaces/a/secrets/s1', undefined, 'get'],
    ['GET', '/apis/apps/v1/namespaces/a/deployments?watch=true', undefined, 'watch'],
    ['GET', '/apis/apps/v1/deployments?labelSelector=x', undefined, 'list'],
    ['POST', '/apis/coordination.k8s.io/v1/namespaces/a/leases', undefined, 'create'],
    ['PUT', '/apis/coordination.k8s.io/v1/namespaces/a/leases/l', undefined, 'update'],
    ['PATCH', '/apis/apps/v1/namespaces/a/deployments/d', 'application/apply-patch+yaml', 'apply'],
    ['PATCH', '/apis/apps/v1/namespaces/a/deployments/d', 'application/merge-patch+json', 'patch'],
    ['DELETE', '/api/v1/namespaces/a/services/s', undefined, 'delete'],
  ])('%s %s -> %s', (method, path, contentType, verb) => {
    expect(kubeVerb(method, path, contentType)).toBe(verb);
  });
});

describe('instrumentKubeRequests', () => {
  it('records requests to the API server origin only, with status', async () => {
    const server = createServer((req, res) => {
      res.writeHead(req.url?.includes('missing') ? 404 : 200).end('{}');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const seen: string[] = [];
    const stop = instrumentKubeRequests(url, (verb, result) => seen.push(`${verb} ${result}`));
    try {
      await (await fetch(`${url}/api/v1/namespaces/a/secrets/missing`)).text();
      await (await fetch(`${url}/api/v1/namespaces/a/secrets`)).text();
      await (
        await fetch(`${url}/apis/apps/v1/namespaces/a/deployments/d`, {
          method: 'PATCH',
          headers: { 'content-type': 'application/apply-patch+yaml' },
          body: '{}',
        })
      ).text();
      // Another origin is not counted.
      await fetch(`http://127.0.0.1:1/api/v1/namespaces`).catch(() => undefined);
    } finally {
      stop();
      server.close();
    }
    expect(seen).toEqual(['get 404', 'list 200', 'apply 200']);
  });
});
