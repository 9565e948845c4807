/** Hand-written objects shaped like the renderer's output, for resource-manager tests. */
import type { KubeObject } from '../../src/objects/kube-object.ts';

export const LISTENER = '11111111-1111-4111-8111-111111111111';
export const DEPLOYMENT = '22222222-2222-4222-8222-222222222222';

export function labels(
  component: string,
  deploymentId = DEPLOYMENT,
  listenerId = LISTENER,
): Record<string, string> {
  return {
    'app.kubernetes.io/managed-by': 'mooring',
    'mooring.dev/listener-id': listenerId,
    'mooring.dev/deployment-id': deploymentId,
    'app.kubernetes.io/component': component,
    'app.kubernetes.io/name': 'mooring-app',
  };
}

function meta(name: string, namespace: string, component: string, deploymentId = DEPLOYMENT) {
  return {
    name,
    namespace,
    labels: labels(component, deploymentId),
    annotations: { 'mooring.dev/revision-id': 'rev-1' },
  };
}

export function deployment(
  namespace: string,
  name = 'app',
  opts: { image?: string; replicas?: number | null; deploymentId?: string } = {},
): KubeObject {
  const selector = {
    'app.kubernetes.io/name': name,
    'mooring.dev/deployment-id': opts.deploymentId ?? DEPLOYMENT,
  };
  const spec: Record<string, unknown> = {
    selector: { matchLabels: selector },
    template: {
      metadata: { labels: { ...selector, 'app.kubernetes.io/component': 'api-server' } },
      spec: {
        containers: [
          {
            name: 'api',
            image: opts.image ?? 'example.com/app:1.0',
            ports: [{ name: 'http', containerPort: 8000 }],
            env: [{ name: 'MOORING_COMPONENT', value: 'api-server' }],
            resources: { requests: { cpu: '0.5', memory: '512Mi' }, limits: { cpu: '1', memory: '1Gi' } },
          },
        ],
      },
    },
  };
  if (opts.replicas !== null) spec.replicas = opts.replicas ?? 1;
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: meta(name, namespace, 'api-server', opts.deploymentId),
    spec,
  };
}

export function service(namespace: string, name = 'app', deploymentId = DEPLOYMENT): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: meta(name, namespace, 'api-server', deploymentId),
    spec: {
      selector: { 'app.kubernetes.io/name': name, 'mooring.dev/deployment-id': deploymentId },
      ports: [{ name: 'http', port: 8000, targetPort: 8000 }],
    },
  };
}

export function envSecret(
  namespace: string,
  name = 'app-env',
  values: Record<string, string> = { API_TOKEN: 'canary-s3cr3t-value' },
): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: meta(name, namespace, 'env'),
    type: 'Opaque',
    stringData: values,
  };
}

export function credentialsSecret(namespace: string, name = 'app-postgres-credentials'): KubeObject {
  const m = meta(name, namespace, 'postgres');
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      ...m,
      annotations: {
        ...m.annotations,
        'mooring.dev/create-only': 'true',
        'mooring.dev/generate-keys': 'POSTGRES_PASSWORD',
      },
    },
    type: 'Opaque',
    stringData: { POSTGRES_USER: 'postgres', POSTGRES_DB: 'postgres' },
  };
}

export function hpa(namespace: string, name = 'app', min = 2, max = 5): KubeObject {
  return {
    apiVersion: 'autoscaling/v2',
    kind: 'HorizontalPodAutoscaler',
    metadata: meta(name, namespace, 'api-server'),
    spec: {
      scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name },
      minReplicas: min,
      maxReplicas: max,
      metrics: [
        {
          type: 'Resource',
          resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } },
        },
      ],
    },
  };
}

export function statefulSet(
  namespace: string,
  name = 'app-postgres',
  opts: { storage?: string; image?: string } = {},
): KubeObject {
  const selector = { 'app.kubernetes.io/name': name, 'mooring.dev/deployment-id': DEPLOYMENT };
  return {
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: meta(name, namespace, 'postgres'),
    spec: {
      replicas: 1,
      serviceName: name,
      selector: { matchLabels: selector },
      template: {
        metadata: { labels: { ...selector, 'app.kubernetes.io/component': 'postgres' } },
        spec: {
          containers: [
            {
              name: 'postgres',
              image: opts.image ?? 'postgres:16',
              ports: [{ name: 'pg', containerPort: 5432 }],
            },
          ],
        },
      },
      volumeClaimTemplates: [
        {
          metadata: { name: 'data', labels: labels('postgres') },
          spec: {
            accessModes: ['ReadWriteOnce'],
            resources: { requests: { storage: opts.storage ?? '1Gi' } },
          },
        },
      ],
    },
  };
}

/** A small converged set: env Secret, credentials Secret, Service, Deployment. */
export function basicSet(namespace: string): KubeObject[] {
  return [deployment(namespace), service(namespace), envSecret(namespace), credentialsSecret(namespace)];
}
