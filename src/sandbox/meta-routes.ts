/** The non-resource endpoints: discovery, openapi, health, and the sandbox's test endpoints. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  AGGREGATED,
  aggregatedDiscovery,
  coreVersions,
  group,
  groupList,
  resourceList,
  versionInfo,
  wantsAggregated,
} from './discovery.ts';
import { type FaultRule, FaultRulesSchema } from './faults.ts';
import type { HandlerDeps } from './handler.ts';
import type { ResourceType } from './resources.ts';
import { serveHealth } from './health.ts';
import { parseJsonBody, readBody, send } from './http-body.ts';
import { openApiDocument, openApiIndex } from './openapi.ts';
import { badRequest, methodNotAllowed } from './status.ts';

/** `/sandbox/v1/requests` and `/sandbox/v1/faults`; false when `path` is neither. */
export async function sandboxEndpoint(
  deps: Pick<HandlerDeps, 'log' | 'faults'>,
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
): Promise<boolean> {
  const { log, faults } = deps;
  if (path === '/sandbox/v1/requests') {
    if (req.method === 'GET') send(res, 200, log.find());
    else if (req.method === 'DELETE') {
      log.clear();
      send(res, 200, []);
    } else throw methodNotAllowed(`the server does not allow this method on the requested resource`);
    return true;
  }
  if (path === '/sandbox/v1/faults') {
    if (req.method === 'GET') send(res, 200, faults.list());
    else if (req.method === 'DELETE') {
      faults.clear();
      send(res, 200, []);
    } else if (req.method === 'PUT') {
      const parsed = FaultRulesSchema.safeParse(parseJsonBody(await readBody(req)));
      if (!parsed.success)
        throw badRequest(
          `invalid fault rules: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`,
        );
      faults.set(parsed.data as FaultRule[]);
      send(res, 200, faults.list());
    } else throw methodNotAllowed('the server does not allow this method on the requested resource');
    return true;
  }
  return false;
}

/** Discovery, openapi and health documents; false when `path` is none of them. */
export function discovery(
  deps: Pick<HandlerDeps, 'serverAddress' | 'cluster'>,
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
): boolean {
  const served = (type: ResourceType) => deps.cluster.serves(type);
  if ((path === '/api' || path === '/apis') && wantsAggregated(req.headers.accept)) {
    send(res, 200, aggregatedDiscovery(path === '/api', served), { 'Content-Type': AGGREGATED });
    return true;
  }
  if (serveHealth(path, new URLSearchParams((req.url ?? '').split('?')[1] ?? ''), res)) return true;
  const fixed: Record<string, () => unknown> = {
    '/version': versionInfo,
    '/api': () => coreVersions(deps.serverAddress()),
    '/apis': () => groupList(served),
    '/openapi/v3': openApiIndex,
  };
  const document = fixed[path];
  if (document) {
    send(res, 200, document());
    return true;
  }
  if (path.startsWith('/openapi/v3/')) {
    const doc = openApiDocument(path.slice('/openapi/v3/'.length));
    if (!doc) return false;
    send(res, 200, doc.body, { ETag: `"${doc.hash}"` });
    return true;
  }
  const parts = path.split('/').filter((p) => p !== '') as string[] & { 1: string; 2: string };
  if (parts[0] === 'api' && parts.length === 2) {
    const list = resourceList('', parts[1], served);
    if (!list) return false;
    send(res, 200, list);
    return true;
  }
  if (parts[0] === 'apis' && parts.length === 2) {
    const g = group(parts[1], served);
    if (!g) return false;
    send(res, 200, g);
    return true;
  }
  if (parts[0] === 'apis' && parts.length === 3) {
    const list = resourceList(parts[1], parts[2], served);
    if (!list) return false;
    send(res, 200, list);
    return true;
  }
  return false;
}
