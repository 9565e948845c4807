import { z } from 'zod';
import {
  DeploymentDeleteQuery,
  DeploymentListQuery,
  RevisionListQuery,
  strict,
} from '../../contract/index.ts';
import { HttpError, invalid, parseOr422 } from './errors.ts';
import { JsonBytes } from './http-io.ts';
import { listReply } from './list-reply.ts';
import { NoQuery, parseQuery, uuidParam } from './params.ts';
import { interfaceDeploymentBody } from './public-spellings.ts';
import type { RequestContext, Router } from './router.ts';
import type { ControlStore } from './control-store.ts';

/** The most ids one bulk DELETE takes, as in the public API. */
export const MAX_BULK_DELETE_IDS = 100;

/**
 * Deployments (4.7, 4.8; create, read and delete per docs/control-plane.md) and revisions (4.9,
 * 4.10, redeploy). Create and patch bodies may use the public API's spellings (public-spellings.ts).
 */
export function deploymentRoutes(router: Router, store: ControlStore): void {
  router.on('GET', '/v2/deployments', (ctx) => {
    const query = parseQuery(DeploymentListQuery, ctx.query);
    return listReply(store.deployments.list(query, ctx.tenantId));
  });

  router.on('POST', '/v2/deployments', async (ctx) => {
    parseQuery(NoQuery, ctx.query);
    const body = parseOr422(strict.DeploymentCreate, interfaceDeploymentBody(await ctx.body()), ['body']);
    const tenantId = ctx.tenantId ?? store.defaultTenantId;
    return { status: 201, body: store.deployments.create(body, { tenantId }) };
  });

  router.on('DELETE', '/v2/deployments', (ctx) => {
    const ids = bulkDeleteIds(ctx);
    const outcome = store.lifecycle.markManyForDeletion(ids, ctx.tenantId);
    if (outcome.deleted.length === 0) throw new HttpError(404, 'none of the deployments was found');
    return { status: outcome.failed.length === 0 ? 200 : 207, body: outcome };
  });

  router.on('GET', '/v2/deployments/{deployment_id}', (ctx) => {
    const id = uuidParam(ctx.params, 'deployment_id');
    parseQuery(NoQuery, ctx.query);
    return { status: 200, body: new JsonBytes(store.deployments.getJson(id, ctx.tenantId)) };
  });

  router.on('PATCH', '/v2/deployments/{deployment_id}', async (ctx) => {
    const id = uuidParam(ctx.params, 'deployment_id');
    parseQuery(NoQuery, ctx.query);
    const body = parseOr422(strict.DeploymentPatch, interfaceDeploymentBody(await ctx.body()), ['body']);
    return { status: 200, body: store.deployments.patch(id, body, ctx.tenantId) };
  });

  router.on('DELETE', '/v2/deployments/{deployment_id}', (ctx) => {
    const id = uuidParam(ctx.params, 'deployment_id');
    // `delete_tracing_project` is accepted and has nothing to act on: the reference keeps no tracing projects.
    parseQuery(DeploymentDeleteQuery, ctx.query);
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
    return {
      status: 200,
      body: new JsonBytes(store.deployments.getRevisionJson(id, revisionId, ctx.tenantId)),
    };
  });

  router.on('POST', '/v2/deployments/{deployment_id}/revisions/{revision_id}/redeploy', (ctx) => {
    const id = uuidParam(ctx.params, 'deployment_id');
    const revisionId = uuidParam(ctx.params, 'revision_id');
    parseQuery(NoQuery, ctx.query);
    return { status: 200, body: store.deployments.redeploy(id, revisionId, ctx.tenantId) };
  });
}

const DeploymentId = z.uuid();

/**
 * The ids of a bulk DELETE: `deployment_ids` repeated (as the public API's framework reads an
 * array in a query) or as a comma list (as the list filter of the same name), or both; 1 to 100.
 */
function bulkDeleteIds(ctx: RequestContext): string[] {
  const ids: string[] = [];
  for (const [key, value] of ctx.query) {
    if (key !== 'deployment_ids')
      throw invalid(['query', key], 'Extra inputs are not permitted', 'extra_forbidden');
    for (const item of value.split(',')) {
      const loc = ['query', 'deployment_ids', ids.length];
      ids.push(parseOr422(DeploymentId, item.trim(), loc));
    }
  }
  if (ids.length === 0) throw invalid(['query', 'deployment_ids'], 'Field required', 'missing');
  if (ids.length > MAX_BULK_DELETE_IDS) {
    throw invalid(['query', 'deployment_ids'], `at most ${MAX_BULK_DELETE_IDS} ids`, 'too_long');
  }
  return ids;
}
