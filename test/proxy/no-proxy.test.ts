import { describe, expect, it } from 'vitest';
import { describeProxy, proxyForUrl, proxyPasswords } from '../../src/proxy/from-environment.ts';
import { parseNoProxy } from '../../src/proxy/no-proxy.ts';

// Go's own table (golang.org/x/net/http/httpproxy, TestUseProxy): every host on port 80 against
// this NO_PROXY; `proxied` is Go's `useProxy` answer.
const GO_NO_PROXY =
  'foobar.com, .barbaz.net, *.wildcard.io, 192.168.1.1, 192.168.1.2:81, 192.168.1.3:80, 10.0.0.0/30, 2001:db8::52:0:1, [2001:db8::52:0:2]:443, [2001:db8::52:0:3]:80, 2002:db8:a::45/64';
const GO_TABLE: [host: string, proxied: boolean][] = [
  ['localhost', false],
  ['127.0.0.1', false],
  ['127.0.0.2', false],
  ['[::1]', false],
  ['[::2]', true],
  ['192.168.1.1', false],
  ['192.168.1.2', true],
  ['192.168.1.3', false],
  ['192.168.1.4', true],
  ['10.0.0.2', false],
  ['[2001:db8::52:0:1]', false],
  ['[2001:db8::52:0:2]', true],
  ['[2001:db8::52:0:3]', false],
  ['[2002:db8:a::123]', false],
  ['[fe80::424b:c8be:1643:a1b6]', true],
  ['barbaz.net', true],
  ['www.barbaz.net', false],
  ['foobar.com', false],
  ['www.foobar.com', false],
  ['foofoobar.com', true],
  ['baz.com', true],
  ['localhost.net', true],
  ['local.localhost', true],
  ['barbarbaz.net', true],
  ['wildcard.io', true],
  ['nested.wildcard.io', false],
  ['awildcard.io', true],
];

describe('NO_PROXY matching (Go httpproxy semantics)', () => {
  const noProxy = parseNoProxy(GO_NO_PROXY);
  it.each(GO_TABLE)('%s:80 proxied=%s', (host, proxied) => {
    expect(noProxy.bypasses(host, 80)).toBe(!proxied);
  });

  it('`*` bypasses every host', () => {
    const all = parseNoProxy('*');
    for (const [host] of GO_TABLE) expect(all.bypasses(host, 80)).toBe(true);
  });

  it('ignores malformed entries (":1") and an empty value, bypassing only loopback', () => {
    expect(parseNoProxy(':1').bypasses('example.com', 80)).toBe(false);
    expect(parseNoProxy('').bypasses('example.com', 443)).toBe(false);
    expect(parseNoProxy(undefined).bypasses('127.0.0.1', 443)).toBe(true);
  });

  it('compares ports, matches case-insensitively and IPv6 by value', () => {
    const rules = parseNoProxy('Corp.Example:8443, 10.96.0.0/12, 0:0:0:0:0:ffff:a00:1');
    expect(rules.bypasses('api.corp.example', 8443)).toBe(true);
    expect(rules.bypasses('api.corp.example', 443)).toBe(false);
    expect(rules.bypasses('10.96.0.1', 443)).toBe(true);
    expect(rules.bypasses('10.112.0.1', 443)).toBe(false);
    expect(rules.bypasses('[::ffff:a00:1]', 1)).toBe(true);
  });
});

describe('proxyForUrl (Go ProxyFromEnvironment)', () => {
  it('takes HTTPS_PROXY for https and HTTP_PROXY for http, upper case first, no cross-over', () => {
    const env = { HTTPS_PROXY: 'http://upper:3128', https_proxy: 'http://lower:3128' };
    expect(proxyForUrl('https://cp.example.com', env)).toBe('http://upper:3128');
    expect(proxyForUrl('https://cp.example.com', { https_proxy: 'http://lower:3128' })).toBe(
      'http://lower:3128',
    );
    expect(proxyForUrl('http://cp.example.com', env)).toBeUndefined();
    expect(proxyForUrl('https://cp.example.com', { HTTP_PROXY: 'http://p:1' })).toBeUndefined();
    expect(proxyForUrl('http://cp.example.com', { http_proxy: 'p:1' })).toBe('http://p:1');
  });

  it('honours NO_PROXY (upper case first) with the default port of the scheme', () => {
    const env = { HTTPS_PROXY: 'http://p:3128', NO_PROXY: 'cp.example.com:443', no_proxy: '*' };
    expect(proxyForUrl('https://cp.example.com', env)).toBeUndefined();
    expect(proxyForUrl('https://cp.example.com:8443', env)).toBe('http://p:3128');
  });

  it('refuses a socks or garbage proxy without echoing it', () => {
    expect(() => proxyForUrl('https://x.example', { HTTPS_PROXY: 'socks5://u:s3cret@p:1080' })).toThrow(
      expect.objectContaining({
        code: 'MOORING_E_CONFIG_INVALID',
        message: expect.not.stringContaining('s3cret'),
      }),
    );
  });

  it('describes a proxy without its credentials', () => {
    expect(describeProxy('http://user:pa%40ss@proxy.corp:3128/')).toBe('http://proxy.corp:3128');
  });
});

describe('proxyPasswords (for the redactor)', () => {
  it('finds each proxy password, as written and decoded', () => {
    expect(
      proxyPasswords({
        HTTPS_PROXY: 'http://u:pa%40ss-word@p:1',
        http_proxy: 'u2:second-secret@p:2',
        NO_PROXY: 'x:y@z',
      }),
    ).toEqual(['pa%40ss-word', 'pa@ss-word', 'second-secret']);
    expect(proxyPasswords({ HTTPS_PROXY: 'http://p:3128' })).toEqual([]);
  });
});
