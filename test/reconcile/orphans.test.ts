import { describe, expect, it } from 'vitest';
import { MooringError } from '../../src/errors.ts';
import { inventoryOf } from '../../src/kube/list.ts';
import type { KubeObject } from '../../src/objects/kube-object.ts';
import { OrphanCollector, pruneCap } from '../../src/reconcile/orphans.ts';

function objs(deploymentId: string, n: number, kind = 'Service'): KubeObject[] {
  return Array.from({ length: n }, (_, i) => ({
    apiVersion: 'v1',
    kind,
    metadata: {
      name: `${deploymentId}-${kind.toLowerCase()}-${i}`,
      namespace: 'apps',
      labels: { 'mooring.dev/deployment-id': deploymentId },
    },
  }));
}

const listed = (...ids: string[]) => ({
  complete: true as const,
  deployments: ids.map((id) => ({ id, status: 'READY' })),
});

describe('OrphanCollector', () => {
  const inv = inventoryOf([...objs('a', 3), ...objs('b', 2)]);

  it('absent once → zero deletes; absent twice in a row → deleted', () => {
    const c = new OrphanCollector();
    const first = c.observe(listed('a'), inv);
    expect(first.objects).toEqual([]);
    expect(first.absentOnce).toEqual(['b']);
    const second = c.observe(listed('a'), inv);
    expect(second.deploymentIds).toEqual(['b']);
    expect(second.objects.map((o) => o.metadata.name)).toEqual(['b-service-0', 'b-service-1']);
  });

  it('a failed listing → zero deletes, and it breaks the run of absences', () => {
    const c = new OrphanCollector();
    c.observe(listed('a'), inv);
    const failed = c.observe({ complete: false, error: new Error('503') }, inv);
    expect(failed.objects).toEqual([]);
    expect(failed.refused?.code).toBe('MOORING_E_PRUNE_LISTING_INCOMPLETE');
    expect(c.observe(listed('a'), inv).objects).toEqual([]);
    expect(c.observe(listed('a'), inv).deploymentIds).toEqual(['b']);
  });

  it('a listing with unparsable records proves nothing', () => {
    const c = new OrphanCollector();
    c.observe(listed('a'), inv);
    const plan = c.observe({ ...listed('a'), rejectedCount: 1 }, inv);
    expect(plan.objects).toEqual([]);
    expect(plan.refused?.code).toBe('MOORING_E_PRUNE_LISTING_INCOMPLETE');
  });

  it('an empty but complete listing still needs two rounds (no prune storm on one bad answer)', () => {
    const c = new OrphanCollector();
    expect(c.observe(listed(), inv).objects).toEqual([]);
  });

  it('AWAITING_DELETE goes at once; reappearing resets the count', () => {
    const c = new OrphanCollector();
    const plan = c.observe(
      {
        complete: true,
        deployments: [
          { id: 'a', status: 'AWAITING_DELETE' },
          { id: 'b', status: 'READY' },
        ],
      },
      inv,
    );
    expect(plan.deploymentIds).toEqual(['a']);
    c.observe(listed('a'), inv);
    c.observe(listed('a', 'b'), inv);
    expect(c.observe(listed('a'), inv).objects).toEqual([]);
  });

  it('past the cap deletes nothing and reports loudly', () => {
    const big = inventoryOf([...objs('a', 10), ...objs('gone', 60)]);
    const c = new OrphanCollector();
    c.observe(listed('a'), big);
    const plan = c.observe(listed('a'), big);
    expect(plan.objects).toEqual([]);
    expect(plan.refused?.code).toBe('MOORING_E_PRUNE_CAP_EXCEEDED');
    expect(plan.refused?.message).toContain('60 objects');
    expect(plan.refused?.message).toContain('cap of 50');
    expect(pruneCap(1000)).toBe(250);
    expect(pruneCap(10)).toBe(50);
    const smallCap = new OrphanCollector({ capMinObjects: 1, capFraction: 0 });
    smallCap.observe(listed('a'), inv);
    expect(smallCap.observe(listed('a'), inv).refused?.code).toBe('MOORING_E_PRUNE_CAP_EXCEEDED');
  });

  it('keeps volumes out of the plan unless deleteVolumes', () => {
    const withPvc = inventoryOf([
      ...objs('a', 1),
      ...objs('gone', 1),
      ...objs('gone', 1, 'PersistentVolumeClaim'),
    ]);
    const keep = new OrphanCollector();
    keep.observe(listed('a'), withPvc);
    expect(keep.observe(listed('a'), withPvc).objects.map((o) => o.kind)).toEqual(['Service']);
    const drop = new OrphanCollector({ deleteVolumes: true });
    drop.observe(listed('a'), withPvc);
    expect(drop.observe(listed('a'), withPvc).objects.map((o) => o.kind)).toEqual([
      'Service',
      'PersistentVolumeClaim',
    ]);
  });

  it('failed deletes stay tracked and are retried (regression: Flux kustomize-controller #1664)', () => {
    const c = new OrphanCollector();
    c.observe(listed('a'), inv);
    const plan = c.observe(listed('a'), inv);
    const [first, second] = plan.objects as [KubeObject, KubeObject];
    c.recordDeletes(
      {
        dryRun: false,
        entries: [
          {
            id: `Service/apps/${first.metadata.name}`,
            apiVersion: 'v1',
            kind: 'Service',
            name: first.metadata.name ?? '',
            action: 'deleted',
          },
          {
            id: `Service/apps/${second.metadata.name}`,
            apiVersion: 'v1',
            kind: 'Service',
            name: second.metadata.name ?? '',
            action: 'unknown',
            error: new MooringError('MOORING_E_KUBE_SERVER', 'delete failed'),
          },
        ],
      },
      inv,
    );
    expect(c.failedDeletes).toEqual([`Service/apps/${second.metadata.name}`]);
    const remaining = inventoryOf([...objs('a', 3), second]);
    const retry = c.observe(listed('a'), remaining);
    expect(retry.objects.map((o) => o.metadata.name)).toEqual([second.metadata.name]);
    expect(retry.retrying).toEqual([`Service/apps/${second.metadata.name}`]);
  });
});

describe('OrphanCollector: a deployment that moved namespace', () => {
  const labels = { 'mooring.dev/deployment-id': 'm' };
  const svc = (ns: string): KubeObject => ({
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: 'svc', namespace: ns, labels },
  });
  const claim = (ns: string): KubeObject => ({
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name: 'data-svc-postgres-0', namespace: ns, labels },
  });
  /** A Deployment whose live status says Ready, or still rolling out. */
  const workload = (ns: string, ready: boolean): KubeObject => ({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'svc', namespace: ns, labels, generation: 1 },
    spec: { replicas: 1 },
    status: {
      observedGeneration: 1,
      replicas: 1,
      updatedReplicas: 1,
      readyReplicas: ready ? 1 : 0,
      availableReplicas: ready ? 1 : 0,
      conditions: [{ type: 'Available', status: ready ? 'True' : 'False' }],
    },
  });
  const listing = {
    complete: true as const,
    deployments: [{ id: 'm', status: 'READY', namespace: 'new' }],
  };

  it('prunes what it left in the old namespace after two listings once it runs in the new one; keeps the new', () => {
    const inv = inventoryOf([svc('old'), workload('old', true), svc('new'), workload('new', true)]);
    const c = new OrphanCollector();
    expect(c.observe(listing, inv).objects).toEqual([]);
    const plan = c.observe(listing, inv);
    expect(plan.deploymentIds).toEqual(['m']);
    expect(plan.objects.map((o) => o.metadata.namespace)).toEqual(['old', 'old']);
    expect(plan.moved).toEqual([{ deploymentId: 'm', from: 'old', to: 'new' }]);
    // Without a namespace in the listing, the deployment's objects everywhere count as present.
    const unknown = new OrphanCollector();
    unknown.observe({ complete: true, deployments: [{ id: 'm' }] }, inv);
    expect(unknown.observe({ complete: true, deployments: [{ id: 'm' }] }, inv).objects).toEqual([]);
  });

  it('keeps the old objects while the new namespace is not Ready, and starts the count over', () => {
    const rolling = inventoryOf([svc('old'), workload('old', true), svc('new'), workload('new', false)]);
    const ready = inventoryOf([svc('old'), workload('old', true), svc('new'), workload('new', true)]);
    const c = new OrphanCollector();
    for (let i = 0; i < 3; i++) expect(c.observe(listing, rolling).objects).toEqual([]);
    expect(c.observe(listing, ready).objects).toEqual([]);
    // A relapse breaks the run of absences: two more Ready listings are needed.
    expect(c.observe(listing, rolling).objects).toEqual([]);
    expect(c.observe(listing, ready).objects).toEqual([]);
    expect(c.observe(listing, ready).objects).toHaveLength(2);
  });

  it('leftover volumes in the new namespace are not a running deployment', () => {
    // Moved back to where its kept claims are: the workloads are not there yet.
    const inv = inventoryOf([svc('old'), workload('old', true), claim('new')]);
    const c = new OrphanCollector();
    for (let i = 0; i < 3; i++) expect(c.observe(listing, inv).objects).toEqual([]);
  });

  it('nothing of it in the new namespace yet (a move not applied, or refused) never prunes', () => {
    const inv = inventoryOf([svc('old'), workload('old', true)]);
    const c = new OrphanCollector();
    for (let i = 0; i < 3; i++) expect(c.observe(listing, inv).objects).toEqual([]);
  });
});
