import { describe, expect, it } from 'vitest';
import { renderDeployment } from '../../src/render/index.ts';
import { sortForApply } from '../../src/objects/kinds.ts';
import { deployment, settings } from './fixtures.ts';
import { byName, errorOf, renderSpec, type Workload } from './helpers.ts';

describe('defaults and scaling', () => {
  it('main defaults: 1 CPU / 1Gi requests, limits twice, 1 replica, Redis and Postgres (10Gi, 100 connections)', () => {
    const { objects } = renderSpec({});
    const api = byName(objects, 'Deployment', 'shop-api');
    expect(api.spec.replicas).toBe(1);
    expect(api.spec.template.spec.containers[0]!.resources).toEqual({
      limits: { cpu: '2', memory: '2Gi' },
      requests: { cpu: '1', memory: '1Gi' },
    });
    const pg = byName(objects, 'StatefulSet', 'shop-api-postgres');
    expect(pg.spec.volumeClaimTemplates[0]!.spec.resources.requests.storage).toBe('10Gi');
    expect(pg.spec.template.spec.containers[0]!.args).toEqual(['-c', 'max_connections=100']);
    expect(byName(objects, 'Deployment', 'shop-api-redis')).toBeDefined();
    expect(
      objects.some((o) => o.kind === 'HorizontalPodAutoscaler' || o.kind === 'PodDisruptionBudget'),
    ).toBe(false);
    expect(objects.some((o) => /queue|orchestrator|executor/.test(o.metadata.name))).toBe(false);
  });

  it('a limit alone lowers the defaulted request to it', () => {
    const { objects } = renderSpec({ cpu_limit: 0.5 });
    expect(
      byName(objects, 'Deployment', 'shop-api').spec.template.spec.containers[0]!.resources.requests.cpu,
    ).toBe('500m');
  });

  it('with an HPA the Deployment has no replicas; min_scale >= 2 adds a PDB', () => {
    const { objects } = renderSpec({ min_scale: 2, max_scale: 5 });
    expect('replicas' in byName(objects, 'Deployment', 'shop-api').spec).toBe(false);
    expect(byName(objects, 'HorizontalPodAutoscaler', 'shop-api').spec).toMatchObject({
      minReplicas: 2,
      maxReplicas: 5,
    });
    expect(byName(objects, 'PodDisruptionBudget', 'shop-api').spec.minAvailable).toBe(1);
  });

  it('an HPA never has minReplicas 0', () => {
    const { objects } = renderSpec({ min_scale: 0, max_scale: 3 });
    expect(byName(objects, 'HorizontalPodAutoscaler', 'shop-api').spec.minReplicas).toBe(1);
  });

  it('UNUSED: every workload at 0 replicas, no HPA, no PDB', () => {
    const { objects } = renderDeployment({
      deployment: deployment({ status: 'UNUSED', spec: { min_scale: 2, max_scale: 9, queue_cpu: 1 } }),
      settings: settings(),
    });
    const workloads = objects.filter(
      (o) => o.kind === 'Deployment' || o.kind === 'StatefulSet',
    ) as unknown as Workload[];
    expect(workloads.length).toBe(4);
    for (const w of workloads) expect(w.spec.replicas, w.metadata.name).toBe(0);
    expect(
      objects.some((o) => o.kind === 'HorizontalPodAutoscaler' || o.kind === 'PodDisruptionBudget'),
    ).toBe(false);
  });

  it('selectors use only the deployment id and component, and match the pod labels', () => {
    const { objects } = renderSpec({ labels: { team: 'x' }, queue_cpu: 1 });
    for (const w of objects.filter(
      (o) => o.kind === 'Deployment' || o.kind === 'StatefulSet',
    ) as unknown as Workload[]) {
      const sel = w.spec.selector.matchLabels;
      expect(Object.keys(sel).sort()).toEqual(['app.kubernetes.io/component', 'mooring.dev/deployment-id']);
      expect(w.spec.template.metadata.labels).toMatchObject(sel);
    }
  });

  it('the Postgres claim template carries no user labels (it is immutable once created)', () => {
    const { objects } = renderSpec({ labels: { team: 'x' } });
    const pg = byName(objects, 'StatefulSet', 'shop-api-postgres') as unknown as {
      metadata: { labels: Record<string, string> };
      spec: { volumeClaimTemplates: { metadata: { labels: Record<string, string> } }[] };
    };
    expect(pg.metadata.labels.team).toBe('x');
    expect(pg.spec.volumeClaimTemplates[0]!.metadata.labels.team).toBeUndefined();
    expect(pg.spec.volumeClaimTemplates[0]!.metadata.labels['mooring.dev/deployment-id']).toBeDefined();
  });

  it('a cluster domain that is not a DNS name is refused', () => {
    const err = errorOf(() =>
      renderDeployment({ deployment: deployment({}), settings: settings({ clusterDomain: 'not a domain' }) }),
    );
    expect(err.field).toBe('settings.clusterDomain');
  });

  it('objects come in apply order', () => {
    const { objects } = renderSpec({ min_scale: 2, max_scale: 3 });
    expect(objects.map((o) => o.kind)).toEqual([
      'NetworkPolicy',
      'Secret',
      'Service',
      'Service',
      'Service',
      'Deployment',
      'Deployment',
      'StatefulSet',
      'HorizontalPodAutoscaler',
      'PodDisruptionBudget',
    ]);
  });

  it('objects come in the order the resource manager applies them (one kind order)', () => {
    const { objects } = renderSpec({ min_scale: 2, max_scale: 3 });
    expect(objects).toEqual(sortForApply(objects));
  });
});
