/**
 * Dispatches one HTTP request: discovery, openapi, the sandbox test endpoints, and the resource
 * verbs; records it in the request log and applies fault rules first.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { serveAccessReview } from './access-review.ts';
import { decodeBody, mediaType, readBytes, send } from './http-body.ts';
import { discovery, sandboxEndpoint } from './meta-routes.ts';
import type { Cluster } from './cluster.ts';
import { deleteCollection, deleteObject, parseDeleteOptions } from './deletes.ts';
import type { FaultRule, Faults } from './faults.ts';
import { getObject, listJson, listObjects } from './reads.ts';
import { isWriteVerb, type RequestLog, type RequestRecord } from './request-log.ts';
import { noRoute, route, type ResourceRequest } from './router.ts';
import { scale } from './scale.ts';
import { ApiError, methodNotAllowed } from './status.ts';
import { answerAs, answerForm, partialMetadata, partialMetadataList } from './answer-form.ts';
import { includeObjectOf, toTable } from './table.ts';
import { serveWatch } from './watch.ts';
import { parseWriteOptions } from './write-options.ts';
import { apply, create, patch, update } from './writes.ts';

/** The UIDs the sandbox's (fixed) flow schema and priority level answer with. */
const APF_FLOW_SCHEMA_UID = 'f1a2c3d4-0000-4000-8000-00000000a9f0';
const APF_PRIORITY_LEVEL_UID = 'f1a2c3d4-0000-4000-8000-00000000a9f1';

export interface HandlerDeps {
  cluster: Cluster;
  log: RequestLog;
  faults: Faults;
  /** host:port clients reach the server at (for /api). */
  serverAddress: () => string;
  bookmarkIntervalMs: number;
  onInternalError: (error: unknown) => void;
}

const delay = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

function faultStatus(rule: FaultRule, req: ResourceRequest): ApiError {
  const name = req.name ?? '';
  switch (rule.status) {
    case 429:
      return new ApiError(
        429,
        'TooManyRequests',
        'The server has received too many requests and has asked us to try again later',
        {
          ...(rule.retryAfterSeconds !== undefined ? { retryAfterSeconds: rule.retryAfterSeconds } : {}),
        },
      );
    case 409:
      return new ApiError(
        409,
        'Conflict',
        `Operation cannot be fulfilled on ${req.type.resource} "${name}": injected conflict`,
        { name, kind: req.type.resource },
      );
    case 503:
      return new ApiError(503, 'ServiceUnavailable', 'The server is currently unable to handle the request');
    default:
      return new ApiError(500, 'InternalError', 'Internal error occurred: injected fault');
  }
}

export function createHandler(deps: HandlerDeps): (req: IncomingMessage, res: ServerResponse) => void {
  const { cluster, log, faults } = deps;

  async function resource(
    req: IncomingMessage,
    res: ServerResponse,
    r: ResourceRequest,
    query: URLSearchParams,
    record: RequestRecord,
    resetAfterMs: number | undefined,
  ): Promise<void> {
    const { type, namespace, name, subresource } = r;
    // A namespaced kind is served across namespaces for list and watch only; a cluster-scoped
    // one has no namespaced path; unserved subresources have no route at all.
    if (type.namespaced && namespace === undefined && !['list', 'watch'].includes(r.verb)) {
      if (name !== undefined) throw noRoute();
      throw methodNotAllowed('the server does not allow this method on the requested resource');
    }
    if (!type.namespaced && namespace !== undefined) throw noRoute();
    if (subresource !== undefined && !type.subresources.includes(subresource as 'status' | 'scale')) {
      throw noRoute();
    }
    const form = answerForm(req.headers.accept);
    switch (r.verb) {
      case 'get': {
        if (subresource === 'scale') return send(res, 200, scale.get(cluster, type, namespace, name ?? ''));
        const obj = getObject(cluster, type, namespace, name ?? '');
        if (form === 'Table')
          return send(
            res,
            200,
            toTable(
              type.kind,
              [obj],
              { resourceVersion: obj.metadata.resourceVersion },
              cluster.nowDate(),
              includeObjectOf(query),
            ),
          );
        return send(res, 200, answerAs(obj, form));
      }
      case 'list': {
        const list = listObjects(cluster, type, namespace, query);
        if (form === 'Table')
          return send(
            res,
            200,
            toTable(type.kind, list.objects, list.metadata, cluster.nowDate(), includeObjectOf(query)),
          );
        return send(res, 200, form === 'PartialObjectMetadata' ? partialMetadataList(list) : listJson(list));
      }
      case 'watch': {
        serveWatch(cluster, type, namespace, query, res, {
          bookmarkIntervalMs: deps.bookmarkIntervalMs,
          resetAfterMs,
          // A metadata-only watch (as metadata informers ask) gets PartialObjectMetadata events.
          render:
            form === 'Table'
              ? (o) => toTable(type.kind, [o], {}, cluster.nowDate(), includeObjectOf(query))
              : form === 'PartialObjectMetadata'
                ? partialMetadata
                : undefined,
        });
        return;
      }
      case 'delete':
      case 'deletecollection': {
        const options = parseDeleteOptions(
          query,
          decodeBody(await readBytes(req), req),
          query.getAll('dryRun').includes('All'),
        );
        record.dryRun = options.dryRun;
        if (r.verb === 'deletecollection')
          return send(res, 200, deleteCollection(cluster, type, namespace, query, options));
        const out = deleteObject(cluster, type, namespace, name ?? '', options);
        return send(res, out.code, answerAs(out.body, form));
      }
      default:
        break;
    }
    const options = parseWriteOptions(query, req.headers['user-agent']);
    record.dryRun = options.dryRun;
    const bytes = await readBytes(req);
    const structured = r.verb === 'create' || r.verb === 'update' ? decodeBody(bytes, req) : undefined;
    const text = structured === undefined ? bytes.toString('utf8') : '';
    let out: { code: number; body: unknown };
    if (subresource === 'scale')
      out = scale.write(
        cluster,
        type,
        namespace,
        name ?? '',
        r.verb,
        mediaType(req.headers['content-type']),
        structured !== undefined ? JSON.stringify(structured) : text,
        options,
      );
    else if (r.verb === 'create') {
      if (name !== undefined)
        throw methodNotAllowed('the server does not allow this method on the requested resource');
      out = create(cluster, type, namespace, structured, options);
    } else if (r.verb === 'update')
      out = update(cluster, type, namespace, name ?? '', structured, options, subresource);
    else if (r.verb === 'apply') {
      if (subresource)
        throw methodNotAllowed('server-side apply to subresources is not supported by the sandbox');
      out = apply(cluster, type, namespace, name ?? '', text, options);
    } else if (r.verb === 'patch') {
      const ct = mediaType(req.headers['content-type']);
      if (
        ![
          'application/json-patch+json',
          'application/merge-patch+json',
          'application/strategic-merge-patch+json',
        ].includes(ct)
      ) {
        return send(
          res,
          415,
          new ApiError(
            415,
            'UnsupportedMediaType',
            `the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml, application/strategic-merge-patch+json`,
          ).status,
        );
      }
      out = patch(cluster, type, namespace, name ?? '', ct, text, options, subresource);
    } else throw methodNotAllowed('the server does not allow this method on the requested resource');
    const created = (out.body as { metadata?: { name?: string } }).metadata?.name;
    if (record.name === undefined && created !== undefined) record.name = created;
    const headers: Record<string, string> = {};
    if (options.warnings.length > 0)
      headers.Warning = options.warnings.map((w) => `299 - ${JSON.stringify(w)}`).join(', ');
    send(res, out.code, answerAs(out.body, form), headers);
  }

  return (req, res) => {
    // Like kube-apiserver with API Priority and Fairness (on by default since 1.20): every answer
    // names the flow schema and priority level that admitted it.
    res.setHeader('X-Kubernetes-PF-FlowSchema-UID', APF_FLOW_SCHEMA_UID);
    res.setHeader('X-Kubernetes-PF-PriorityLevel-UID', APF_PRIORITY_LEVEL_UID);
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    const path = q < 0 ? url : url.slice(0, q);
    const query = new URLSearchParams(q < 0 ? '' : url.slice(q + 1));
    const method = req.method ?? 'GET';
    let record: RequestRecord | undefined;
    let dropped = false;
    const run = async (): Promise<void> => {
      if (path.startsWith('/sandbox/')) {
        if (await sandboxEndpoint(deps, req, res, path)) return;
        throw noRoute();
      }
      if (await serveAccessReview(req, res, path)) return;
      const routed = route(method, path, query, mediaType(req.headers['content-type']));
      if (routed.kind === 'other') {
        if (method === 'GET' && discovery(deps, req, res, path)) return;
        throw noRoute();
      }
      if (routed.kind === 'unknown-resource' || !deps.cluster.serves(routed.request.type)) {
        throw noRoute();
      }
      const r = routed.request;
      record = {
        time: new Date().toISOString(),
        method,
        path,
        verb: r.verb,
        group: r.group,
        version: r.version,
        resource: r.type.resource,
        kind: r.type.kind,
        status: 0,
        write: isWriteVerb(r.verb),
        dryRun: false,
      };
      if (r.namespace !== undefined) record.namespace = r.namespace;
      if (r.name !== undefined) record.name = r.name;
      const fm = query.get('fieldManager');
      if (fm) record.fieldManager = fm;
      for (const key of ['labelSelector', 'fieldSelector'] as const) {
        const selector = query.get(key);
        if (selector) record[key] = selector;
      }
      const ua = req.headers['user-agent'];
      if (ua) record.userAgent = ua;
      log.add(record);
      const fault = faults.match(r.verb, r.type.resource, r.namespace);
      if (fault?.latencyMs) await delay(fault.latencyMs);
      if (fault?.dropConnection) {
        dropped = true;
        req.socket.destroy();
        return;
      }
      if (fault?.status) {
        const error = faultStatus(fault, r);
        const headers: Record<string, string> =
          fault.retryAfterSeconds !== undefined ? { 'Retry-After': String(fault.retryAfterSeconds) } : {};
        record.status = error.code;
        return send(res, error.code, error.status, headers);
      }
      await resource(req, res, r, query, record, fault?.watchResetAfterMs);
    };
    run()
      .catch((error: unknown) => {
        if (res.headersSent) {
          res.destroy();
          return;
        }
        if (error instanceof ApiError) return send(res, error.code, error.status);
        deps.onInternalError(error);
        const internal = new ApiError(
          500,
          'InternalError',
          'Internal error occurred: unexpected server error',
        );
        send(res, 500, internal.status);
      })
      .finally(() => {
        if (record && record.status === 0 && !dropped) record.status = res.statusCode;
        if (record) record.endTime = new Date().toISOString();
      });
  };
}
