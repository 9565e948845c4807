/**
 * The Kubernetes client behind a proxy, against the sandbox API: HTTPS_PROXY / NO_PROXY from the
 * environment as client-go reads them, a kubeconfig proxy-url winning for its cluster, and the
 * in-cluster API server reached directly. The API server's name is known to the proxy alone.
 */
import { lookup as dnsLookup, type LookupAllOptions } from 'node:dns';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { MooringError } from '../../src/errors.ts';
import { KubeHttp } from '../../src/kube/http.ts';
import { type ClusterAccess, inClusterAccess, parseKubeconfig } from '../../src/kube/kubeconfig.ts';
import { type KubeApi, startKubeApi } from '../../src/sandbox/server.ts';
import { type ConnectProxy, startConnectProxy } from '../support/connect-proxy.ts';

const HOST = 'kube.mooring.test';
const PASSWORD = 'kube-pr0xy-pw-4e2a';

let api: KubeApi;
let proxy: ConnectProxy;
let other: ConnectProxy;
let port: number;

/** Resolves the test host to loopback in this process alone: the direct path. */
const loopbackLookup = ((host: string, opts: LookupAllOptions, cb: (...a: unknown[]) => void) => {
  if (host !== HOST) return dnsLookup(host, opts, cb as never);
  if (opts.all) cb(null, [{ address: '127.0.0.1', family: 4 }]);
  else cb(null, '127.0.0.1', 4);
}) as never;

/** The sandbox's kubeconfig with the server named HOST (the certificate is checked for localhost). */
function access(extra: Record<string, unknown> = {}, lookup = false): ClusterAccess {
  const doc = parse(api.kubeconfig) as { clusters: { cluster: Record<string, unknown> }[] };
  const cluster = doc.clusters[0]!.cluster;
  Object.assign(cluster, { server: `https://${HOST}:${port}`, 'tls-server-name': 'localhost', ...extra });
  const parsed = parseKubeconfig(stringify(doc), process.cwd());
  return lookup ? { ...parsed, tls: { ...parsed.tls, lookup: loopbackLookup } as never } : parsed;
}

async function namespaces(kube: KubeHttp): Promise<unknown> {
  try {
    return (await kube.request<{ kind: string }>({ method: 'GET', path: '/api/v1/namespaces' })).body.kind;
  } finally {
    await kube.close();
  }
}

beforeAll(async () => {
  api = await startKubeApi({ namespaces: ['apps'] });
  port = Number(new URL(api.url).port);
  proxy = await startConnectProxy({ hosts: { [HOST]: '127.0.0.1' } });
  other = await startConnectProxy({ hosts: { [HOST]: '127.0.0.1' } });
});

afterAll(async () => {
  await proxy.close();
  await other.close();
  await api.close();
});

beforeEach(() => {
  for (const p of [proxy, other]) {
    p.tunnels.length = 0;
    p.refuseWith(undefined);
  }
});

describe('Kubernetes client and HTTPS_PROXY', () => {
  const env = () => ({ HTTPS_PROXY: `http://ops:${PASSWORD}@127.0.0.1:${proxy.port}` });

  it('reaches the API server only through the proxy when HTTPS_PROXY is set', async () => {
    const kube = new KubeHttp(access(), { env: env() });
    expect(kube.route).toEqual({ proxy: `http://127.0.0.1:${proxy.port}` });
    expect(await namespaces(kube)).toBe('NamespaceList');
    expect(proxy.tunnels).toEqual([`${HOST}:${port}`]);
  });

  it('goes direct when the host matches NO_PROXY', async () => {
    const kube = new KubeHttp(access({}, true), { env: { ...env(), no_proxy: 'mooring.test' } });
    expect(kube.route).toEqual({});
    expect(await namespaces(kube)).toBe('NamespaceList');
    expect(proxy.tunnels).toEqual([]);
  });

  it("lets the kubeconfig's proxy-url win for its cluster", async () => {
    proxy.refuseWith(403);
    const kube = new KubeHttp(access({ 'proxy-url': other.url }), { env: env() });
    expect(await namespaces(kube)).toBe('NamespaceList');
    expect(other.tunnels).toEqual([`${HOST}:${port}`]);
    expect(proxy.tunnels).toEqual([]);
  });

  it("hands the redactor a kubeconfig proxy-url's password (as written and decoded) and its token", () => {
    const told: (readonly string[])[] = [];
    const kube = new KubeHttp(
      { ...access({ 'proxy-url': `http://ops:${encodeURIComponent(`${PASSWORD}@`)}@proxy.example:3128` }) },
      { env: {}, onCredentials: (values) => told.push(values) },
    );
    expect(kube.route).toEqual({ proxy: 'http://proxy.example:3128' });
    expect(told).toEqual([expect.arrayContaining([`${PASSWORD}%40`, `${PASSWORD}@`])]);
    told.length = 0;
    new KubeHttp(
      { ...access(), credentials: { type: 'token', token: 'static-token-9f3c' } },
      { env: {}, onCredentials: (values) => told.push(values) },
    );
    expect(told).toEqual([['static-token-9f3c']]);
  });

  it('fails with MOORING_E_PROXY_REFUSED, naming the proxy without its password', async () => {
    proxy.refuseWith(407);
    const err = await namespaces(new KubeHttp(access(), { env: env() })).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(MooringError);
    const e = err as MooringError;
    expect(e.code).toBe('MOORING_E_PROXY_REFUSED');
    expect(e.message).toContain(`http://127.0.0.1:${proxy.port}`);
    expect(e.message).toContain('407');
    expect(`${e.message} ${JSON.stringify(e.details)}`).not.toContain(PASSWORD);
  });

  it('reaches the in-cluster API server directly, HTTPS_PROXY notwithstanding', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'mooring-sa-'));
    try {
      writeFileSync(path.join(dir, 'token'), 'sandbox-token');
      writeFileSync(path.join(dir, 'ca.crt'), api.caPem);
      const inCluster = inClusterAccess(
        { KUBERNETES_SERVICE_HOST: HOST, KUBERNETES_SERVICE_PORT: String(port) },
        dir,
      );
      const kube = new KubeHttp(
        { ...inCluster, tls: { ...inCluster.tls, servername: 'localhost', lookup: loopbackLookup } as never },
        { env: env() },
      );
      expect(kube.route).toEqual({});
      expect(await namespaces(kube)).toBe('NamespaceList');
      expect(proxy.tunnels).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
