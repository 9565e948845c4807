import { MooringError } from '../errors.ts';
import { proxyRefused, tunnelRefusalStatus } from '../proxy/refusal.ts';

/** Transport error codes (undici's and the socket layer's) that mean "the request may not have arrived". */
const NETWORK_CODES: ReadonlySet<string> = new Set([
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
  'UND_ERR_DESTROYED',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);
/** TLS verification failures: the certificate chain or name did not check out against the trusted CAs. */
const UNTRUSTED_CODES: ReadonlySet<string> = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'CERT_UNTRUSTED',
  'CERT_SIGNATURE_FAILURE',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);
const TIMEOUT_CODES: ReadonlySet<string> = new Set([
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
]);

/** HTTP statuses worth another try: the request was not processed, or may succeed shortly. */
export const RETRY_STATUSES: ReadonlySet<number> = new Set([429, 502, 503, 504]);

export interface RequestInfo {
  method: string;
  /** The route pattern (`/v2/deployments/{deployment_id}`), never the full URL with a query. */
  route: string;
}

/**
 * Maps a transport failure to a coded error. Only the error's code and name are kept in the
 * message: undici messages never contain request headers, but nothing here relies on that.
 * `proxy` is the proxy the request went through, already without credentials.
 */
export function transportError(err: unknown, info: RequestInfo, proxy?: string): MooringError {
  const refused = proxy === undefined ? undefined : tunnelRefusalStatus(err);
  if (refused !== undefined && proxy !== undefined)
    return proxyRefused(refused, proxy, `${info.method} ${info.route}`, { ...info });
  const e = err as { code?: unknown; name?: unknown; cause?: { code?: unknown } };
  // undici wraps a certificate refused inside a proxy tunnel (UND_ERR_PRX_TLS): the cause says why.
  const code =
    typeof e?.code === 'string' && e.code !== 'UND_ERR_PRX_TLS'
      ? e.code
      : typeof e?.cause?.code === 'string'
        ? e.cause.code
        : typeof e?.code === 'string'
          ? e.code
          : undefined;
  const name = typeof e?.name === 'string' ? e.name : 'Error';
  const details = { ...info, cause: code ?? name, ...(proxy ? { proxy } : {}) };
  if (code !== undefined && UNTRUSTED_CODES.has(code)) {
    return new MooringError(
      'MOORING_E_CP_TLS_UNTRUSTED',
      `${info.method} ${info.route}: the control plane's certificate is not trusted (${code}); give its CA with --control-plane-ca-file or NODE_EXTRA_CA_CERTS`,
      { cause: err, details },
    );
  }
  if (name === 'TimeoutError' || (code !== undefined && TIMEOUT_CODES.has(code))) {
    return new MooringError('MOORING_E_CP_TIMEOUT', `${info.method} ${info.route}: timed out`, {
      cause: err,
      details,
    });
  }
  return new MooringError(
    'MOORING_E_CP_UNREACHABLE',
    `${info.method} ${info.route}: control plane unreachable (${code ?? name})${proxy ? ` through the proxy ${proxy}` : ''}`,
    { cause: err, details },
  );
}

/** True for transport failures the client retries. */
export function isNetworkError(err: MooringError): boolean {
  if (err.code === 'MOORING_E_CP_TIMEOUT') return true;
  return err.code === 'MOORING_E_CP_UNREACHABLE' && NETWORK_CODES.has(String(err.details.cause));
}

/** True when the client should try again: network failures and 429/502/503/504. */
export function shouldRetry(err: unknown): boolean {
  if (!(err instanceof MooringError)) return false;
  if (err.code === 'MOORING_E_PROXY_REFUSED') return err.retryable;
  if (err.code === 'MOORING_E_CP_UNREACHABLE' || err.code === 'MOORING_E_CP_TIMEOUT')
    return isNetworkError(err);
  return err.code === 'MOORING_E_CP_UNAVAILABLE' && RETRY_STATUSES.has(Number(err.details.status));
}

/**
 * Maps an unexpected HTTP status to a coded error. The server's `detail` is kept (shortened) in
 * `details.detail`: it names fields and rules, and this server never echoes header values.
 */
export function statusError(
  status: number,
  body: string,
  info: RequestInfo,
  retryAfterMs: number | undefined,
): MooringError {
  const detail = readDetail(body);
  const details: Record<string, unknown> = { ...info, status, ...(detail ? { detail } : {}) };
  const where = `${info.method} ${info.route}: HTTP ${status}`;
  if (status === 401 || status === 403) {
    return new MooringError('MOORING_E_CP_UNAUTHORIZED', `${where}: API key refused`, { details });
  }
  if (status === 404) return new MooringError('MOORING_E_CP_NOT_FOUND', `${where}: not found`, { details });
  if (status === 429 || status >= 500) {
    return new MooringError('MOORING_E_CP_UNAVAILABLE', `${where}: control plane unavailable`, {
      details,
      ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
    });
  }
  return new MooringError('MOORING_E_CP_REJECTED', `${where}${detail ? `: ${detail}` : ''}`, { details });
}

function readDetail(body: string): string | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return undefined;
  }
  const detail = (parsed as { detail?: unknown })?.detail;
  let text: string | undefined;
  if (typeof detail === 'string') text = detail;
  else if (Array.isArray(detail)) {
    text = detail
      .map((d) => {
        const item = d as { loc?: unknown; msg?: unknown };
        const loc = Array.isArray(item.loc) ? item.loc.join('.') : '?';
        return `${loc}: ${typeof item.msg === 'string' ? item.msg : 'invalid'}`;
      })
      .join('; ');
  }
  return text === undefined ? undefined : text.slice(0, 500);
}
