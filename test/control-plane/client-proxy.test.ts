/**
 * The control-plane client behind a corporate proxy and a private CA: a real CONNECT proxy in
 * front of the reference control plane served over TLS with its own CA. The control plane's host
 * name is known to the proxy alone, so reaching it proves the client went through the proxy.
 */
import { lookup as dnsLookup, type LookupAllOptions } from 'node:dns';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ControlPlaneClient, type ControlPlaneClientOptions } from '../../src/control-plane/client.ts';
import type { ControlPlaneServer } from '../../src/control-plane/server/index.ts';
import { MooringError } from '../../src/errors.ts';
import { createLogger } from '../../src/log.ts';
import { createClientCertificate } from '../support/client-certificate.ts';
import { type ConnectProxy, startConnectProxy } from '../support/connect-proxy.ts';
import { startListenedControlPlane } from '../support/stack.ts';
import { startTlsFront, type TlsFront } from '../support/tls-front.ts';

const API_KEY = 'cp-proxy-key-5d1f0a';
const HOST = 'control-plane.mooring.test';
const PROXY_PASSWORD = 'pr0xy-s3cret-91c2';

let cp: ControlPlaneServer;
let listenerId: string;
let front: TlsFront;
let proxy: ConnectProxy;
let proxyWithCredentials: string;
const logLines: string[] = [];

/** Resolves the test host to loopback in this process alone: the direct path, without the proxy. */
const loopbackLookup = ((host: string, opts: LookupAllOptions, cb: (...a: unknown[]) => void) => {
  if (host !== HOST) return dnsLookup(host, opts, cb as never);
  if (opts.all) cb(null, [{ address: '127.0.0.1', family: 4 }]);
  else cb(null, '127.0.0.1', 4);
}) as never;

beforeAll(async () => {
  ({ cp, listenerId } = await startListenedControlPlane({ namespaces: ['apps'], apiKey: API_KEY }));
  front = await startTlsFront(Number(new URL(cp.url).port), [HOST]);
  proxy = await startConnectProxy({ hosts: { [HOST]: '127.0.0.1' } });
  proxyWithCredentials = `http://corp-user:${PROXY_PASSWORD}@127.0.0.1:${proxy.port}`;
});

afterAll(async () => {
  await proxy.close();
  await front.close();
  await cp.close();
});

beforeEach(() => {
  proxy.tunnels.length = 0;
  proxy.authorizations.length = 0;
  proxy.refuseWith(undefined);
  logLines.length = 0;
});

function client(options: Partial<ControlPlaneClientOptions>): ControlPlaneClient {
  const sink = new Writable({
    write(chunk, _enc, done) {
      logLines.push(String(chunk));
      done();
    },
  });
  return new ControlPlaneClient({
    baseUrl: `https://${HOST}:${front.port}`,
    apiKey: API_KEY,
    retries: 2,
    retryMinDelayMs: 5,
    retryMaxDelayMs: 10,
    timeoutMs: 5_000,
    logger: createLogger({ level: 'trace', destination: sink }),
    ...options,
  });
}

async function listenerIds(c: ControlPlaneClient): Promise<string[]> {
  return (await c.listListeners()).items.map((l) => l.id);
}

async function failure(p: Promise<unknown>): Promise<MooringError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(MooringError);
  return err as MooringError;
}

describe('control-plane client and HTTPS_PROXY', () => {
  it('reaches the control plane only through the proxy when HTTPS_PROXY is set', async () => {
    const c = client({ env: { HTTPS_PROXY: proxyWithCredentials }, tls: { ca: front.caPem } });
    try {
      expect(await listenerIds(c)).toContain(listenerId);
    } finally {
      await c.close();
    }
    expect(proxy.tunnels).toEqual([`${HOST}:${front.port}`]);
    // The credentials went to the proxy, in its header only.
    expect(proxy.authorizations[0]).toBe(
      `Basic ${Buffer.from(`corp-user:${PROXY_PASSWORD}`).toString('base64')}`,
    );
    expect(c.route).toEqual({ proxy: `http://127.0.0.1:${proxy.port}`, ca: 'custom' });
    expect(logLines.join('')).not.toContain(PROXY_PASSWORD);
  });

  it('goes direct when the host matches NO_PROXY', async () => {
    const c = client({
      env: { HTTPS_PROXY: proxyWithCredentials, NO_PROXY: '10.0.0.0/8,.mooring.test' },
      tls: { ca: front.caPem, lookup: loopbackLookup },
    });
    try {
      expect(await listenerIds(c)).toContain(listenerId);
    } finally {
      await c.close();
    }
    expect(proxy.tunnels).toEqual([]);
    expect(c.route.proxy).toBeUndefined();
  });

  it('fails with MOORING_E_PROXY_REFUSED, naming the proxy but never its password, when the proxy refuses', async () => {
    proxy.refuseWith(403);
    const c = client({ env: { https_proxy: proxyWithCredentials }, tls: { ca: front.caPem } });
    let err: MooringError;
    try {
      err = await failure(c.listListeners());
    } finally {
      await c.close();
    }
    expect(err.code).toBe('MOORING_E_PROXY_REFUSED');
    expect(err.message).toContain(`http://127.0.0.1:${proxy.port}`);
    expect(err.message).toContain('403');
    expect(JSON.stringify({ m: err.message, d: err.details })).not.toContain(PROXY_PASSWORD);
    expect(err.message).not.toContain('corp-user');
    // A policy refusal is not tried again.
    expect(proxy.tunnels).toHaveLength(1);
    expect(logLines.join('')).not.toContain(PROXY_PASSWORD);
  });

  it('retries a proxy that cannot reach the control plane (502), then reports it', async () => {
    proxy.refuseWith(502);
    const c = client({ env: { HTTPS_PROXY: proxyWithCredentials }, tls: { ca: front.caPem } });
    let err: MooringError;
    try {
      err = await failure(c.listListeners());
    } finally {
      await c.close();
    }
    expect(err.code).toBe('MOORING_E_PROXY_REFUSED');
    expect(err.retryable).toBe(true);
    expect(proxy.tunnels).toHaveLength(3);
  });
});

describe('control-plane client and a private CA', () => {
  it('refuses an untrusted control-plane certificate with MOORING_E_CP_TLS_UNTRUSTED', async () => {
    const c = client({ baseUrl: `https://localhost:${front.port}` });
    let err: MooringError;
    try {
      err = await failure(c.listListeners());
    } finally {
      await c.close();
    }
    expect(err.code).toBe('MOORING_E_CP_TLS_UNTRUSTED');
    expect(err.message).toContain('--control-plane-ca-file');
    expect(c.route).toEqual({ ca: 'system' });
  });

  it('accepts it with the CA given', async () => {
    const c = client({ baseUrl: `https://localhost:${front.port}`, tls: { ca: front.caPem } });
    try {
      expect(await listenerIds(c)).toContain(listenerId);
    } finally {
      await c.close();
    }
  });
});

describe('control-plane client and mutual TLS', () => {
  it('presents the client certificate given, through the proxy; without it the control plane refuses', async () => {
    const client_ = await createClientCertificate('mooring-agent');
    const mtls = await startTlsFront(Number(new URL(cp.url).port), [HOST], { clientCa: client_.caPem });
    const env = { HTTPS_PROXY: proxyWithCredentials };
    const baseUrl = `https://${HOST}:${mtls.port}`;
    try {
      const without = client({ baseUrl, env, tls: { ca: mtls.caPem }, retries: 0 });
      try {
        // A TLS 1.3 server refuses after the handshake: the client sees its connection closed.
        expect((await failure(without.listListeners())).code).toBe('MOORING_E_CP_UNREACHABLE');
      } finally {
        await without.close();
      }
      const withCert = client({
        baseUrl,
        env,
        tls: { ca: mtls.caPem, cert: client_.certPem, key: client_.keyPem },
      });
      try {
        expect(await listenerIds(withCert)).toContain(listenerId);
      } finally {
        await withCert.close();
      }
      expect(proxy.tunnels).toEqual([`${HOST}:${mtls.port}`, `${HOST}:${mtls.port}`]);
    } finally {
      await mtls.close();
    }
  });
});
