import { HttpError } from './errors.ts';
import { NoQuery, parseQuery, uuidParam } from './params.ts';
import type { Handler, Router } from './router.ts';
import type { ControlStore } from './control-store.ts';

/** The code the 501 answers carry (listed in docs/errors.md). */
export const NOT_PROVIDED_CODE = 'MOORING_E_CP_NOT_PROVIDED';

/** What each unprovided endpoint would need, and what to do instead. */
const MISSING = {
  registry:
    'the reference control plane has no image registry to issue a push token for; push the image to a registry the cluster can pull from and PATCH source_revision_config.image_uri',
  objectStore:
    'the reference control plane has no object store to upload source to; build an image from the source and PATCH source_revision_config.image_uri',
  logs: 'the reference control plane runs no builds or deployments of its own, so it has no build or deploy logs; the agent reports deploy outcomes as Kubernetes Events',
} as const;

function notProvided(what: keyof typeof MISSING): HttpError {
  return new HttpError(501, `${NOT_PROVIDED_CODE}: ${MISSING[what]}`);
}

/**
 * Endpoints of the public API that need a service the reference does not have. They check what
 * they can (the deployment exists and is the caller's) and then answer 501 with a coded detail
 * naming what is missing, never a bare 404, so a public client stops with a reason.
 */
export function unprovidedRoutes(router: Router, store: ControlStore): void {
  // Log requests carry a JSON body of filters; the answer does not depend on it, so it is not read.
  const forDeployment =
    (param: string, what: keyof typeof MISSING): Handler =>
    (ctx) => {
      const id = uuidParam(ctx.params, param);
      parseQuery(NoQuery, ctx.query);
      store.deployments.get(id, ctx.tenantId);
      throw notProvided(what);
    };
  router.on('POST', '/v2/deployments/{deployment_id}/push-token', forDeployment('deployment_id', 'registry'));
  router.on(
    'POST',
    '/v2/deployments/{deployment_id}/upload-url',
    forDeployment('deployment_id', 'objectStore'),
  );
  // The public deploy client names the deployment as the project.
  router.on(
    'POST',
    '/v1/projects/{project_id}/revisions/{revision_id}/build_logs',
    forDeployment('project_id', 'logs'),
  );
  router.on(
    'POST',
    '/v1/projects/{project_id}/revisions/{revision_id}/deploy_logs',
    forDeployment('project_id', 'logs'),
  );
  router.on('POST', '/v1/projects/{project_id}/deploy_logs', forDeployment('project_id', 'logs'));
}
