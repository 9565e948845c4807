import { DeploymentListQuery, RevisionListQuery, strict } from '../../contract/index.ts';
import { parseOr422 } from './errors.ts';
import { listReply } from './list-reply.ts';
import { NoQuery, parseQuery, uuidParam } from './params.ts';
import type { Router } from './router.ts';
import type { ControlStore } from './control-store.ts';

/** Deployments (4.7, 4.8, create and delete per docs/control-plane.md) and revisions (4.9, 4.10). */
export function deploymentRoutes(router: Router, store: ControlStore): void {
  router.on('GET', '/v2/deployments', (ctx) => {
    const query = parseQuery(DeploymentListQuery, ctx.query);
    return listReply(store.deployments.list(query, ctx.tenantId));
  });

  router.on('POST', '/v2/deployments', async (ctx) => {
    parseQuery(NoQuery, ctx.query);
    const body = parseOr422(strict.DeploymentCreate, await ctx.body(), ['body']);
    const tenantId = ctx.tenantId ?? store.defaultTenantId;
    return { status: 201, body: store.deployments.create(body, { tenantId }) };
  });

  router.on('PATCH', '/v2/deployments/{deployment_id}', async (ctx) => {
    const id = uuidParam(ctx.params, 'deployment_id');
    parseQuery(NoQuery, ctx.query);
    const body = parseOr422(strict.DeploymentPatch, await ctx.body(), ['body']);
    return { status: 200, body: store.deployments.patch(id, body, ctx.tenantId) };
  });

  router.on('DELETE', '/v2/deployments/{deployment_id}', (ctx) => {
    const id = uuidParam(ctx.params, 'deployment_id');
    parseQuery(NoQuery, ctx.query);
    store.deployments.markForDeletion(id, ctx.tenantId);
    return { status: 204 };
  });

  router.on('GET', '/v2/deployments/{deployment_id}/revisions', (ctx) => {
    const id = uuidParam(ctx.params, 'deployment_id');
    const query = parseQuery(RevisionListQuery, ctx.query);
    return listReply(store.deployments.listRevisions(id, query, ctx.tenantId));
  });

  router.on('GET', '/v2/deployments/{deployment_id}/revisions/{revision_id}', (ctx) => {
    const id = uuidParam(ctx.params, 'deployment_id');
    const revisionId = uuidParam(ctx.params, 'revision_id');
    parseQuery(NoQuery, ctx.query);
    return { status: 200, body: store.deployments.getRevision(id, revisionId, ctx.tenantId) };
  });
}
