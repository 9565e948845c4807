import { renderAppWorkload, type checkSecretReferences } from './app.ts';
import { APP_PORT } from './defaults.ts';
import { resourceDefaults } from './operator-defaults.ts';
import { selectorLabels } from './labels.ts';
import { resolveResources, resolveScale, resourceFields } from './resources.ts';
import { type RenderedObject, meta, type RenderContext } from './types.ts';

/** The API server: Deployment `b`, Service `b` (port 8000, `http`), HPA and PDB when due. */
export function renderApiServer(
  ctx: RenderContext,
  references: ReturnType<typeof checkSecretReferences>,
): RenderedObject[] {
  const scale = resolveScale(ctx.spec, 'min_scale', 'max_scale');
  const resources = resolveResources(
    ctx.spec,
    resourceFields(''),
    resourceDefaults(ctx.settings, 'api-server'),
  );
  const service: RenderedObject = {
    apiVersion: 'v1',
    kind: 'Service',
    // Load balancers are told what to do by annotations on the Service (the operator's).
    metadata: meta(ctx, ctx.names.apiServer, 'api-server', ctx.settings.service?.annotations),
    spec: {
      ports: [{ name: 'http', port: APP_PORT, protocol: 'TCP', targetPort: 'http' }],
      selector: selectorLabels(ctx.labels, 'api-server'),
      type: ctx.settings.service?.type ?? 'ClusterIP',
    },
  };
  return [
    service,
    ...renderAppWorkload(ctx, 'api-server', ctx.names.apiServer, scale, resources, references),
  ];
}
