import { renderAppWorkload, type checkSecretReferences } from './app.ts';
import { APP_PORT, DEFAULT_RESOURCES } from './defaults.ts';
import { selectorLabels } from './labels.ts';
import { resolveResources, resolveScale, resourceFields } from './resources.ts';
import { type KubeObject, meta, type RenderContext } from './types.ts';

/** The API server: Deployment `b`, Service `b` (port 8000, `http`), HPA and PDB when due. */
export function renderApiServer(
  ctx: RenderContext,
  references: ReturnType<typeof checkSecretReferences>,
): KubeObject[] {
  const scale = resolveScale(ctx.spec, 'min_scale', 'max_scale');
  const resources = resolveResources(ctx.spec, resourceFields(''), DEFAULT_RESOURCES['api-server']);
  const service: KubeObject = {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: meta(ctx, ctx.names.apiServer, 'api-server'),
    spec: {
      ports: [{ name: 'http', port: APP_PORT, protocol: 'TCP', targetPort: 'http' }],
      selector: selectorLabels(ctx.labels, 'api-server'),
      type: 'ClusterIP',
    },
  };
  return [
    service,
    ...renderAppWorkload(ctx, 'api-server', ctx.names.apiServer, scale, resources, references),
  ];
}
