import { DATASTORE_USERS, REDIS_DEFAULTS } from './defaults.ts';
import { commandAndArgs, resourceDefaults } from './operator-defaults.ts';
import { objectLabels, selectorLabels } from './labels.ts';
import { datastorePodSpec, podAnnotations } from './pod.ts';
import { defaultContainerSecurityContext } from './policy.ts';
import { resolveResources, resourceFields } from './resources.ts';
import { type RenderedObject, meta, type RenderContext } from './types.ts';

/**
 * The bundled Redis: Deployment and Service `b-redis` (6379). A cache: its data lives in an
 * emptyDir and is lost with the pod. None when the deployment brings `REDIS_URI_CUSTOM`.
 */
export function renderRedis(ctx: RenderContext): RenderedObject[] {
  if (!ctx.bundledRedis) return [];
  const resources = resolveResources(
    ctx.spec,
    resourceFields('redis_'),
    resourceDefaults(ctx.settings, 'redis'),
  );
  const name = ctx.names.redis;
  const container: Record<string, unknown> & { name: string } = {
    name: 'redis',
    image: ctx.settings.redisImage,
    ...commandAndArgs(ctx.settings, 'redis'),
  };
  Object.assign(container, {
    ports: [{ containerPort: REDIS_DEFAULTS.port, name: 'redis', protocol: 'TCP' }],
    readinessProbe: { tcpSocket: { port: 'redis' } },
    resources,
    securityContext: defaultContainerSecurityContext(ctx.settings.policy.podSecurity, {
      runAsNonRoot: false,
    }),
    volumeMounts: [{ mountPath: '/data', name: 'data' }],
  });
  const annotations = podAnnotations(ctx.pod);
  const service: RenderedObject = {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: meta(ctx, name, 'redis'),
    spec: {
      ports: [{ name: 'redis', port: REDIS_DEFAULTS.port, protocol: 'TCP', targetPort: 'redis' }],
      selector: selectorLabels(ctx.labels, 'redis'),
      type: 'ClusterIP',
    },
  };
  const deployment: RenderedObject = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: meta(ctx, name, 'redis'),
    spec: {
      replicas: ctx.scaledToZero ? 0 : 1,
      selector: { matchLabels: selectorLabels(ctx.labels, 'redis') },
      template: {
        metadata: { ...(annotations ? { annotations } : {}), labels: objectLabels(ctx.labels, 'redis') },
        spec: datastorePodSpec(ctx, container, DATASTORE_USERS.redis, [{ emptyDir: {}, name: 'data' }]),
      },
    },
  };
  return [service, deployment];
}
