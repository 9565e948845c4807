import { ListenerListQuery, strict } from '../../contract/index.ts';
import { parseOr422 } from './errors.ts';
import { listReply } from './list-reply.ts';
import { NoQuery, parseQuery, uuidParam } from './params.ts';
import type { Router } from './router.ts';
import type { ControlStore } from './control-store.ts';

/**
 * Listeners: list (4.6), patch (4.5); create, read and delete (docs/control-plane.md). Listeners
 * are not tenant-scoped.
 */
export function listenerRoutes(router: Router, store: ControlStore): void {
  router.on('GET', '/v2/listeners', (ctx) => {
    const { limit, offset } = parseQuery(ListenerListQuery, ctx.query);
    return listReply(store.listeners.list(limit, offset));
  });

  router.on('POST', '/v2/listeners', async (ctx) => {
    parseQuery(NoQuery, ctx.query);
    const body = parseOr422(strict.ListenerCreate, await ctx.body(), ['body']);
    return { status: 201, body: store.listeners.create(body) };
  });

  router.on('GET', '/v2/listeners/{listener_id}', (ctx) => {
    const id = uuidParam(ctx.params, 'listener_id');
    parseQuery(NoQuery, ctx.query);
    return { status: 200, body: store.listeners.get(id) };
  });

  router.on('PATCH', '/v2/listeners/{listener_id}', async (ctx) => {
    const id = uuidParam(ctx.params, 'listener_id');
    parseQuery(NoQuery, ctx.query);
    const body = parseOr422(strict.ListenerPatch, await ctx.body(), ['body']);
    return { status: 200, body: store.listeners.patch(id, body) };
  });

  router.on('DELETE', '/v2/listeners/{listener_id}', (ctx) => {
    const id = uuidParam(ctx.params, 'listener_id');
    parseQuery(NoQuery, ctx.query);
    store.listeners.delete(id, (listenerId) => store.lifecycle.countOnListener(listenerId));
    return { status: 204 };
  });
}
