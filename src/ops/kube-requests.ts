/**
 * Counts requests to the Kubernetes API by verb and result, whoever makes them (the resource
 * manager, leader election, namespace checks). client-node sends through undici, which publishes
 * every request on Node's diagnostics channels; we listen there, filtered by the API server's
 * origin, instead of wrapping each client.
 */
import diagnostics from 'node:diagnostics_channel';

/** The Kubernetes verb of a request (as in RBAC and audit logs). */
export type KubeVerb =
  | 'get'
  | 'list'
  | 'watch'
  | 'create'
  | 'update'
  | 'patch'
  | 'apply'
  | 'delete'
  | 'other';

function headerValue(headers: unknown, name: string): string | undefined {
  // undici passes headers as "k: v\r\n" text or a flat [k, v, k, v] array depending on version.
  if (typeof headers === 'string') {
    const line = headers.split('\r\n').find((l) => l.toLowerCase().startsWith(`${name}:`));
    return line?.slice(name.length + 1).trim();
  }
  if (Array.isArray(headers)) {
    for (let i = 0; i + 1 < headers.length; i += 2) {
      if (String(headers[i]).toLowerCase() === name) return String(headers[i + 1]);
    }
  }
  return undefined;
}

/** Derives the verb from method, path and content type. */
export function kubeVerb(method: string, path: string, contentType?: string): KubeVerb {
  const [pathname = '', query = ''] = path.split('?');
  const segments = pathname.split('/').filter(Boolean);
  // /api/v1/<rest> or /apis/<group>/<version>/<rest>
  const rest = segments[0] === 'api' ? segments.slice(2) : segments.slice(3);
  const named = rest[0] === 'namespaces' && rest.length >= 3 ? rest.length >= 4 : rest.length >= 2;
  switch (method.toUpperCase()) {
    case 'GET':
      if (/(^|&)watch=(true|1)/.test(query)) return 'watch';
      return named ? 'get' : 'list';
    case 'POST':
      return 'create';
    case 'PUT':
      return 'update';
    case 'PATCH':
      return contentType?.includes('apply-patch') ? 'apply' : 'patch';
    case 'DELETE':
      return 'delete';
    default:
      return 'other';
  }
}

interface UndiciRequest {
  origin?: unknown;
  method?: string;
  path?: string;
  headers?: unknown;
}

/**
 * Calls `record(verb, result)` for every request to `serverUrl`'s origin; `result` is the HTTP
 * status or "error". Returns a function that stops listening.
 */
export function instrumentKubeRequests(
  serverUrl: string,
  record: (verb: KubeVerb, result: string) => void,
): () => void {
  const origin = new URL(serverUrl).origin;
  const matches = (request: UndiciRequest) => {
    try {
      return new URL(String(request.origin)).origin === origin;
    } catch {
      return false;
    }
  };
  const verbOf = (r: UndiciRequest) =>
    kubeVerb(r.method ?? 'GET', r.path ?? '/', headerValue(r.headers, 'content-type'));
  const onHeaders = (message: unknown) => {
    const { request, response } = message as { request: UndiciRequest; response: { statusCode: number } };
    if (matches(request)) record(verbOf(request), String(response.statusCode));
  };
  const onError = (message: unknown) => {
    const { request } = message as { request: UndiciRequest };
    if (matches(request)) record(verbOf(request), 'error');
  };
  diagnostics.subscribe('undici:request:headers', onHeaders);
  diagnostics.subscribe('undici:request:error', onError);
  return () => {
    diagnostics.unsubscribe('undici:request:headers', onHeaders);
    diagnostics.unsubscribe('undici:request:error', onError);
  };
}
