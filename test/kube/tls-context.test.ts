/**
 * The connections to the API server share one TLS context made when the client is (a context per
 * connection is an OpenSSL context and the PEM parsed again, held as long as the connection), and
 * still verify the server against the kubeconfig's CA.
 */
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import tls from 'node:tls';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { MooringError } from '../../src/errors.ts';
import { KubeHttp } from '../../src/kube/http.ts';
import { type ClusterAccess, parseKubeconfig } from '../../src/kube/kubeconfig.ts';
import { sharedTlsConnect } from '../../src/kube/tls-context.ts';
import { type KubeApi, startKubeApi } from '../../src/sandbox/server.ts';
import { createServingCertificate } from '../../src/sandbox/tls.ts';

let api: KubeApi;
let access: ClusterAccess;

beforeAll(async () => {
  api = await startKubeApi({ namespaces: ['apps'] });
  access = parseKubeconfig(api.kubeconfig, process.cwd());
});
afterAll(async () => {
  await api.close();
});

const namespaces = (kube: KubeHttp) =>
  kube.request<{ kind: string }>({ method: 'GET', path: '/api/v1/namespaces' });

describe('TLS to the API server', () => {
  it('makes no TLS context per connection: every connection shares the one made at start', async () => {
    const kube = new KubeHttp(access);
    const made = vi.spyOn(tls, 'createSecureContext');
    let connections = 0;
    const connected = () => {
      connections++;
    };
    subscribe('undici:client:connected', connected);
    try {
      // Four requests at once: one connection each.
      const answers = await Promise.all([1, 2, 3, 4].map(() => namespaces(kube)));
      expect(answers.map((a) => a.body.kind)).toEqual(Array(4).fill('NamespaceList'));
      expect(connections).toBeGreaterThan(1);
      expect(made).not.toHaveBeenCalled();
    } finally {
      unsubscribe('undici:client:connected', connected);
      made.mockRestore();
      await kube.close();
    }
  });

  it('still verifies the server: a CA that did not sign its certificate is refused', async () => {
    const other = await createServingCertificate(['localhost']);
    const kube = new KubeHttp({ ...access, tls: { ...access.tls, ca: other.caPem } });
    try {
      await expect(namespaces(kube)).rejects.toThrow();
    } finally {
      await kube.close();
    }
  });

  it('refuses material OpenSSL cannot read at start, with MOORING_E_CONFIG_INVALID', () => {
    const secret = 'not-a-pem-3b9f';
    let err: unknown;
    try {
      sharedTlsConnect({
        rejectUnauthorized: true,
        ca: 'x',
        cert: `-----BEGIN CERTIFICATE-----\n${secret}`,
        key: secret,
      });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(MooringError);
    expect((err as MooringError).code).toBe('MOORING_E_CONFIG_INVALID');
    expect((err as MooringError).message).not.toContain(secret);
  });

  it('keeps the per-connection settings as given', () => {
    const connect = sharedTlsConnect({
      rejectUnauthorized: false,
      servername: 'kube.example',
      ca: api.caPem,
    });
    expect(connect).toMatchObject({ rejectUnauthorized: false, servername: 'kube.example' });
    expect(connect).not.toHaveProperty('ca');
    expect(connect.secureContext).toBeDefined();
  });
});
