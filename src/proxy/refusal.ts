/**
 * A proxy's refusal to open a tunnel, told apart from other transport failures. undici reports it
 * as an aborted request whose message carries the proxy's status (`Proxy response (403) !== 200
 * when HTTP Tunneling`); this is the one place that reads that text, and
 * test/control-plane/client-proxy.test.ts fails should an undici upgrade reword it.
 */
import { MooringError } from '../errors.ts';

const TUNNEL_REFUSED = /^Proxy response \((\d{3})\) !== 200 when HTTP Tunneling/;

/** The proxy's HTTP status when `err` (or a cause of it) is a refused CONNECT; else undefined. */
export function tunnelRefusalStatus(err: unknown): number | undefined {
  let e: unknown = err;
  for (let depth = 0; depth < 4 && typeof e === 'object' && e !== null; depth++) {
    const message = (e as { message?: unknown }).message;
    const match = typeof message === 'string' ? TUNNEL_REFUSED.exec(message) : null;
    if (match) return Number(match[1]);
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

/**
 * The coded error for a refused tunnel to `what` through `proxy` (already stripped of
 * credentials). A 5xx says the proxy could not reach the far side and is worth another try; any
 * other status is its policy or its authentication, which a retry will not change.
 */
export function proxyRefused(
  status: number,
  proxy: string,
  what: string,
  details: Record<string, unknown> = {},
): MooringError {
  const why =
    status === 407
      ? 'it wants credentials (put them in the proxy URL: http://user:password@host:port)'
      : status >= 500
        ? 'it could not reach the far side'
        : 'its policy does not allow this destination';
  return new MooringError(
    'MOORING_E_PROXY_REFUSED',
    `${what}: the proxy ${proxy} refused the tunnel (HTTP ${status}): ${why}; or list the host in NO_PROXY to go direct`,
    { details: { ...details, proxy, proxyStatus: status }, retryable: status >= 500 },
  );
}
