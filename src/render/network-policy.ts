import { POSTGRES_DEFAULTS, REDIS_DEFAULTS } from './defaults.ts';
import { LABELS } from '../labels.ts';
import { type RenderedObject, meta, type RenderContext } from './types.ts';

/**
 * NetworkPolicy `b-datastores`: the bundled Redis and Postgres pods accept connections only from
 * pods of this deployment (same namespace, same deployment-id label, which users cannot set), and
 * only on their own ports. None when neither is bundled.
 */
export function renderNetworkPolicy(ctx: RenderContext): RenderedObject | undefined {
  const components: string[] = [];
  const ports: { port: number; protocol: string }[] = [];
  if (ctx.bundledPostgres) {
    components.push('postgres');
    ports.push({ port: POSTGRES_DEFAULTS.port, protocol: 'TCP' });
  }
  if (ctx.bundledRedis) {
    components.push('redis');
    ports.push({ port: REDIS_DEFAULTS.port, protocol: 'TCP' });
  }
  if (components.length === 0) return undefined;
  const deploymentId = { [LABELS.deploymentId]: ctx.labels.deploymentId };
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'NetworkPolicy',
    metadata: meta(ctx, ctx.names.networkPolicy, 'network'),
    spec: {
      ingress: [{ from: [{ podSelector: { matchLabels: deploymentId } }], ports }],
      podSelector: {
        matchExpressions: [{ key: LABELS.component, operator: 'In', values: components }],
        matchLabels: deploymentId,
      },
      policyTypes: ['Ingress'],
    },
  };
}
