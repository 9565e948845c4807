/** Shared fixtures for the apply engine tests. */
import type { KubeObject } from '../../../src/sandbox/apply/index.ts';

export const T0 = '2026-01-01T00:00:00Z';
export const T1 = '2026-01-01T00:01:00Z';
export const T2 = '2026-01-01T00:02:00Z';
export const T3 = '2026-01-01T00:03:00Z';

export interface DeploymentOptions {
  replicas?: number;
  image?: string;
  labels?: Record<string, string>;
  env?: { name: string; value: string }[];
  containers?: Record<string, unknown>[];
}

/** A Deployment applied configuration, the way the agent renders one. */
export function deployment(o: DeploymentOptions = {}): KubeObject {
  const spec: Record<string, unknown> = {
    selector: { matchLabels: { app: 'web' } },
    template: {
      metadata: { labels: { app: 'web' } },
      spec: {
        containers: o.containers ?? [
          {
            name: 'app',
            image: o.image ?? 'nginx:1.27',
            ports: [{ containerPort: 8000 }],
            env: o.env ?? [{ name: 'MODE', value: 'api' }],
          },
        ],
      },
    },
  };
  if (o.replicas !== undefined) spec.replicas = o.replicas;
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: {
      name: 'web',
      namespace: 'default',
      labels: o.labels ?? { 'app.kubernetes.io/managed-by': 'mooring' },
    },
    spec,
  };
}

/** What the server adds when it stores an object (system metadata, defaulting, status). */
export function stored(obj: KubeObject, rv = '1'): KubeObject {
  return {
    ...obj,
    metadata: { ...obj.metadata, uid: 'uid-1', resourceVersion: rv, creationTimestamp: T0, generation: 1 },
  };
}

/** Looks up a managedFields entry by manager (and operation). */
export function entry(obj: KubeObject, manager: string, operation?: 'Apply' | 'Update') {
  return obj.metadata.managedFields?.find(
    (e) => e.manager === manager && (!operation || e.operation === operation),
  );
}

export function podSpec(obj: KubeObject): Record<string, unknown> {
  return ((obj.spec as Record<string, unknown>).template as Record<string, Record<string, unknown>>)
    .spec as Record<string, unknown>;
}

/** Reads a nested value by keys (test convenience; throws on a missing step). */
export function dig(v: unknown, ...keys: (string | number)[]): unknown {
  let cur = v;
  for (const k of keys) {
    if (cur === null || typeof cur !== 'object') throw new Error(`no ${String(k)} in ${JSON.stringify(cur)}`);
    cur = (cur as Record<string | number, unknown>)[k];
  }
  return cur;
}
