/**
 * Which proxy a request takes, from `HTTPS_PROXY` / `HTTP_PROXY` / `NO_PROXY` as Go's
 * `http.ProxyFromEnvironment` reads them: the upper-case name first, then the lower-case one; an
 * https URL takes `HTTPS_PROXY` only and an http URL `HTTP_PROXY` only; a proxy given without a
 * scheme is `http://`. Proxy URLs may carry credentials (`http://user:password@proxy:3128`): they
 * are sent to the proxy and never shown; `describeProxy` is what logs and `/status` print.
 */
import { MooringError } from '../errors.ts';
import { parseNoProxy } from './no-proxy.ts';

type Env = Readonly<Record<string, string | undefined>>;

function envAny(env: Env, ...names: string[]): string | undefined {
  for (const name of names) {
    const value = env[name]?.trim();
    if (value) return value;
  }
  return undefined;
}

/** The proxy URL as written, with `http://` added when it names no scheme. */
function withScheme(proxy: string): string {
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(proxy) ? proxy : `http://${proxy}`;
}

/**
 * The proxy a request to `target` goes through, or undefined for a direct connection. Throws
 * MOORING_E_CONFIG_INVALID for a proxy that is not an http(s) URL (its text is not echoed: it may
 * hold a password).
 */
export function proxyForUrl(target: string | URL, env: Env): string | undefined {
  const url = new URL(target);
  const name = url.protocol === 'https:' ? 'HTTPS_PROXY' : 'HTTP_PROXY';
  const raw = envAny(env, name, name.toLowerCase());
  if (raw === undefined) return undefined;
  const port = url.port || (url.protocol === 'https:' ? '443' : '80');
  if (parseNoProxy(envAny(env, 'NO_PROXY', 'no_proxy')).bypasses(url.hostname, port)) return undefined;
  const proxy = withScheme(raw);
  if (!URL.canParse(proxy) || !/^https?:$/.test(new URL(proxy).protocol)) {
    throw new MooringError(
      'MOORING_E_CONFIG_INVALID',
      `${name}: the proxy must be an http:// or https:// URL (its value is not shown: it may hold credentials)`,
    );
  }
  return proxy;
}

/** A proxy URL as it may be shown: scheme, host and port, never user or password. */
export function describeProxy(proxy: string): string {
  try {
    const url = new URL(proxy);
    return `${url.protocol}//${url.host}`;
  } catch {
    return '(unparseable proxy URL)';
  }
}

/** The password of a proxy URL, decoded and as written; none when it has none or cannot be parsed. */
export function urlPasswords(proxy: string): string[] {
  if (!URL.canParse(withScheme(proxy))) return [];
  const { password } = new URL(withScheme(proxy));
  return password ? [...new Set([password, decodeURIComponent(password)])] : [];
}

/**
 * The passwords in the environment's proxy URLs, decoded and as written, for the redactor: the
 * agent never prints them, and should any library quote a proxy URL, the scrubber cuts them.
 */
export function proxyPasswords(env: Env): string[] {
  const out: string[] = [];
  for (const name of ['HTTPS_PROXY', 'https_proxy', 'HTTP_PROXY', 'http_proxy']) {
    const raw = env[name]?.trim();
    if (raw) out.push(...urlPasswords(raw));
  }
  return [...new Set(out)];
}
