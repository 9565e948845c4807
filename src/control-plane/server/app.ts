import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from '../../log.ts';
import { makeAuthCheck, tenantOf } from './auth.ts';
import type { ControlStore } from './control-store.ts';
import { HttpError } from './errors.ts';
import { MAX_BODY_BYTES, readJsonBody, sendJson } from './http-io.ts';
import { deploymentRoutes } from './routes-deployments.ts';
import { directoryRoutes } from './routes-directory.ts';
import { listenerRoutes } from './routes-listeners.ts';
import { type Match, Router } from './router.ts';
import { unprovidedRoutes } from './routes-unprovided.ts';

export interface AppOptions {
  store: ControlStore;
  apiKey: string;
  logger: Logger;
  maxBodyBytes?: number;
  /**
   * Runs after authentication, before each request is routed: the purge of deleted deployments
   * and the simulated builds, so what a request reads is current under any clock.
   */
  beforeRequest?: () => void;
}

export interface RequestStats {
  requests: number;
  /** Requests per `METHOD /route/pattern` (`unmatched` for unknown paths). */
  byRoute: Record<string, number>;
}

export interface App {
  handle(req: IncomingMessage, res: ServerResponse): Promise<void>;
  stats(): RequestStats;
  resetStats(): void;
}

/**
 * The request pipeline: route, authenticate, validate, answer, count, log one line. Every
 * failure becomes a JSON `detail`; anything unexpected is a 500 whose log line carries the
 * error's name and stack frames but never the request body or headers.
 */
export function createApp(options: AppOptions): App {
  const { store, logger } = options;
  const limit = options.maxBodyBytes ?? MAX_BODY_BYTES;
  const checkAuth = makeAuthCheck(options.apiKey);
  const router = new Router();
  deploymentRoutes(router, store);
  listenerRoutes(router, store);
  directoryRoutes(router, store);
  unprovidedRoutes(router, store);

  let stats: RequestStats = { requests: 0, byRoute: {} };

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const started = performance.now();
    const method = req.method ?? 'GET';
    let route = 'unmatched';
    let status = 500;
    try {
      const url = new URL(req.url ?? '/', 'http://localhost');
      if (url.pathname === '/healthz' && method === 'GET') {
        route = '/healthz';
        status = 200;
        sendJson(res, 200, { status: 'ok' });
        return;
      }
      let match: Match | undefined;
      let routingError: unknown;
      try {
        match = router.match(method, url.pathname);
        route = match.pattern;
      } catch (err) {
        routingError = err;
        route = (err as { pattern?: string }).pattern ?? 'unmatched';
      }
      // Authentication comes first so that an unauthenticated caller learns nothing about routes.
      checkAuth(req);
      if (!match) throw routingError;
      options.beforeRequest?.();
      const reply = await match.handler({
        req,
        params: match.params,
        query: url.searchParams,
        tenantId: tenantOf(req),
        body: () => readJsonBody(req, limit),
      });
      status = reply.status;
      sendJson(res, reply.status, reply.body, reply.headers);
    } catch (err) {
      if (err instanceof HttpError) {
        status = err.status;
        sendJson(res, err.status, { detail: err.detail }, err.headers);
      } else {
        status = 500;
        const e = err instanceof Error ? err : new Error('non-error thrown');
        // The message may quote input; the name and the frames are enough to find the bug.
        logger.error(
          { method, route, errorName: e.name, frames: e.stack?.split('\n').slice(1, 6).join('\n') },
          'unexpected error',
        );
        if (!res.headersSent) sendJson(res, 500, { detail: 'Internal Server Error' });
        else res.destroy();
      }
    } finally {
      const key = `${method} ${route}`;
      stats.requests += 1;
      stats.byRoute[key] = (stats.byRoute[key] ?? 0) + 1;
      const durationMs = Math.round((performance.now() - started) * 1000) / 1000;
      logger.info({ method, route, status, durationMs }, 'request');
    }
  }

  return {
    handle,
    stats: () => ({ requests: stats.requests, byRoute: { ...stats.byRoute } }),
    resetStats: () => {
      stats = { requests: 0, byRoute: {} };
    },
  };
}
