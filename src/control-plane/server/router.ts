import type { IncomingMessage } from 'node:http';
import { HttpError } from './errors.ts';

/** What a handler receives: path parameters, the query, and a lazy body reader. */
export interface RequestContext {
  req: IncomingMessage;
  params: Record<string, string>;
  query: URLSearchParams;
  /** The tenant of the request: `X-Tenant-Id` when given, else undefined (all tenants). */
  tenantId: string | undefined;
  body(): Promise<unknown>;
}

/** A handler's answer: status, JSON body (none for 204) and extra headers. */
export interface Reply {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

export type Handler = (ctx: RequestContext) => Reply | Promise<Reply>;

interface Route {
  /** The pattern as written, e.g. `/v2/deployments/{deployment_id}`: also the metrics label. */
  pattern: string;
  segments: string[];
  methods: Map<string, Handler>;
}

export interface Match {
  pattern: string;
  params: Record<string, string>;
  handler: Handler;
}

/**
 * A small path router: literal segments and `{name}` parameters, one handler per method. A known
 * path with an unknown method is 405 (with `Allow`), an unknown path 404.
 */
export class Router {
  readonly #routes: Route[] = [];

  on(method: string, pattern: string, handler: Handler): this {
    let route = this.#routes.find((r) => r.pattern === pattern);
    if (!route) {
      route = { pattern, segments: split(pattern), methods: new Map() };
      this.#routes.push(route);
    }
    route.methods.set(method, handler);
    return this;
  }

  /** Finds the route of a path; throws 404/405 as HttpError. `pattern` is set even on 405. */
  match(method: string, pathname: string): Match {
    const parts = split(pathname);
    for (const route of this.#routes) {
      const params = matchSegments(route.segments, parts);
      if (!params) continue;
      const handler = route.methods.get(method);
      if (!handler) {
        const allow = [...route.methods.keys()].join(', ');
        const err = new HttpError(405, 'Method Not Allowed', { allow });
        Object.assign(err, { pattern: route.pattern });
        throw err;
      }
      return { pattern: route.pattern, params, handler };
    }
    throw new HttpError(404, 'Not Found');
  }
}

function split(path: string): string[] {
  return path.split('/').filter((s) => s.length > 0);
}

function matchSegments(pattern: string[], parts: string[]): Record<string, string> | undefined {
  if (pattern.length !== parts.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < pattern.length; i++) {
    const p = pattern[i]!;
    const part = parts[i]!;
    if (p.startsWith('{') && p.endsWith('}')) {
      let value: string;
      try {
        value = decodeURIComponent(part);
      } catch {
        return undefined;
      }
      params[p.slice(1, -1)] = value;
    } else if (p !== part) {
      return undefined;
    }
  }
  return params;
}
