import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { inClusterAccess, loadClusterAccess, parseKubeconfig } from '../../src/kube/kubeconfig.ts';

const dir = mkdtempSync(join(tmpdir(), 'mooring-kubeconfig-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function config(user: Record<string, unknown>, cluster: Record<string, unknown> = {}) {
  return stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'c', cluster: { server: 'https://api.example:6443', ...cluster } }],
    users: [{ name: 'u', user }],
    contexts: [{ name: 'ctx', context: { cluster: 'c', user: 'u', namespace: 'team-a' } }],
    'current-context': 'ctx',
  });
}

const invalid = (message: RegExp) =>
  expect.objectContaining({ code: 'MOORING_E_CONFIG_INVALID', message: expect.stringMatching(message) });

describe('parseKubeconfig', () => {
  it('reads the current context: server, CA data, token, namespace', () => {
    const access = parseKubeconfig(
      config({ token: 't0k' }, { 'certificate-authority-data': Buffer.from('CA').toString('base64') }),
      dir,
    );
    expect(access.server).toBe('https://api.example:6443');
    expect(String(access.tls.ca)).toBe('CA');
    expect(access.tls.rejectUnauthorized).toBe(true);
    expect(access.credentials).toEqual({ type: 'token', token: 't0k' });
    expect(access.namespace).toBe('team-a');
  });

  it('resolves certificate and token files relative to the kubeconfig, data winning over files', () => {
    writeFileSync(join(dir, 'ca.crt'), 'FILE-CA');
    writeFileSync(join(dir, 'client.crt'), 'CERT');
    writeFileSync(join(dir, 'client.key'), 'KEY');
    const access = parseKubeconfig(
      config(
        { 'client-certificate': 'client.crt', 'client-key': 'client.key', tokenFile: 'token' },
        { 'certificate-authority': 'ca.crt' },
      ),
      dir,
    );
    expect([String(access.tls.ca), String(access.tls.cert), String(access.tls.key)]).toEqual([
      'FILE-CA',
      'CERT',
      'KEY',
    ]);
    expect(access.credentials).toEqual({ type: 'token-file', file: join(dir, 'token') });
    const data = parseKubeconfig(
      config(
        {},
        {
          'certificate-authority': 'ca.crt',
          'certificate-authority-data': Buffer.from('DATA-CA').toString('base64'),
        },
      ),
      dir,
    );
    expect(String(data.tls.ca)).toBe('DATA-CA');
  });

  it('takes exec plugins (token), basic auth, tls-server-name and an http proxy', () => {
    const exec = parseKubeconfig(
      config({
        exec: {
          apiVersion: 'client.authentication.k8s.io/v1',
          command: 'get-token',
          args: ['--cluster', 'c'],
          env: [{ name: 'A', value: 'b' }],
        },
      }),
      dir,
    );
    expect(exec.credentials).toMatchObject({
      type: 'exec',
      exec: {
        command: 'get-token',
        args: ['--cluster', 'c'],
        env: [{ name: 'A', value: 'b' }],
        workDir: dir,
      },
    });
    const basic = parseKubeconfig(
      config(
        { username: 'admin', password: 'pw' },
        { 'tls-server-name': 'kubernetes', 'proxy-url': 'http://proxy:3128' },
      ),
      dir,
    );
    expect(basic.credentials).toEqual({ type: 'basic', username: 'admin', password: 'pw' });
    expect(basic.tls.servername).toBe('kubernetes');
    expect(basic.proxyUrl).toBe('http://proxy:3128');
  });

  it('refuses what it cannot use, with the reason and never a secret', () => {
    expect(() =>
      parseKubeconfig(
        config({ 'auth-provider': { name: 'gcp', config: { 'access-token': 'SECRET' } } }),
        dir,
      ),
    ).toThrow(invalid(/auth-provider "gcp" is not supported; use an exec credential plugin/));
    expect(() => parseKubeconfig(config({ token: 'SECRET' }, { server: 'http://api.example' }), dir)).toThrow(
      invalid(/plain HTTP/),
    );
    expect(() => parseKubeconfig(config({ 'client-certificate-data': 'Q0VSVA==' }), dir)).toThrow(
      invalid(/needs its key/),
    );
    expect(() => parseKubeconfig(config({}, { 'certificate-authority': 'absent.crt' }), dir)).toThrow(
      invalid(/absent\.crt cannot be read/),
    );
    expect(() => parseKubeconfig(config({}, { 'proxy-url': 'socks5://p:1080' }), dir)).toThrow(
      invalid(/only http and https proxies/),
    );
    expect(() => parseKubeconfig(config({}, { 'proxy-url': 'socks5://ops:SECRET@p:1080' }), dir)).toThrow(
      invalid(/proxy-url socks5:\/\/p:1080: only http and https proxies/),
    );
    expect(() => parseKubeconfig('current-context: nope\ncontexts: []\nclusters: []\n', dir)).toThrow(
      invalid(/current-context "nope"/),
    );
    expect(() => parseKubeconfig('clusters: [{name: c, cluster: {server: 42}}]', dir)).toThrow(
      invalid(/clusters\.0\.cluster\.server/),
    );
    expect(() => parseKubeconfig(': : :\n\t-', dir)).toThrow(invalid(/not YAML/));
    const messages = [
      () =>
        parseKubeconfig(
          config({ 'auth-provider': { name: 'gcp', config: { 'access-token': 'SECRET' } } }),
          dir,
        ),
      () => parseKubeconfig(config({ token: 'SECRET' }, { server: 'http://x' }), dir),
      () => parseKubeconfig(config({}, { 'proxy-url': 'socks5://ops:SECRET@p:1080' }), dir),
    ].map((f) => {
      try {
        f();
        return 'no error';
      } catch (err) {
        return (err as Error).message;
      }
    });
    expect(messages.some((m) => m.includes('SECRET') || m === 'no error')).toBe(false);
  });

  it('plain HTTP is allowed only with insecure-skip-tls-verify', () => {
    const access = parseKubeconfig(
      config({}, { server: 'http://127.0.0.1:8080', 'insecure-skip-tls-verify': true }),
      dir,
    );
    expect(access.tls.rejectUnauthorized).toBe(false);
  });
});

describe('in-cluster access', () => {
  it('uses KUBERNETES_SERVICE_HOST/PORT, the CA and the token file (re-read, not copied)', () => {
    const sa = mkdtempSync(join(dir, 'sa-'));
    writeFileSync(join(sa, 'token'), 'projected');
    writeFileSync(join(sa, 'ca.crt'), 'CLUSTER-CA');
    const access = inClusterAccess(
      { KUBERNETES_SERVICE_HOST: 'fd00::1', KUBERNETES_SERVICE_PORT: '443' },
      sa,
    );
    expect(access.server).toBe('https://[fd00::1]:443');
    expect(String(access.tls.ca)).toBe('CLUSTER-CA');
    expect(access.credentials).toEqual({ type: 'token-file', file: join(sa, 'token') });
  });

  it('outside a cluster says to pass --kubeconfig', () => {
    expect(() => loadClusterAccess('in-cluster', {})).toThrow(invalid(/pass --kubeconfig/));
    expect(() => loadClusterAccess(join(dir, 'nope'), {})).toThrow(invalid(/file not found/));
  });
});
