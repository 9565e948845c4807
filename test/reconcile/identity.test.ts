import { describe, expect, it } from 'vitest';
import { MooringError } from '../../src/errors.ts';
import { LABELS } from '../../src/labels.ts';
import type { KubeObject } from '../../src/objects/kube-object.ts';
import { formatObjectId } from '../../src/objects/object-id.ts';
import { checkIdentity, referencesOf } from '../../src/reconcile/identity.ts';

const NS = 'apps';
const MINE = { namespace: NS, deploymentId: 'dep-b', listenerId: 'lis-1' };

function workload(kind: string, name: string, spec: Record<string, unknown>): KubeObject {
  return { apiVersion: 'apps/v1', kind, metadata: { name, namespace: NS }, spec } as KubeObject;
}
function claim(name: string, labels?: Record<string, string>): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name, namespace: NS, ...(labels ? { labels } : {}) },
  };
}
const finder = (objects: KubeObject[]) => {
  const byId = new Map(objects.map((o) => [formatObjectId(o.kind, NS, o.metadata.name ?? ''), o]));
  return (kind: string, ns: string, name: string) => byId.get(formatObjectId(kind, ns, name));
};
const codeOf = (fn: () => void) => {
  try {
    fn();
  } catch (err) {
    return err instanceof MooringError ? `${err.code}: ${err.message}` : String(err);
  }
  return undefined;
};

describe('referencesOf', () => {
  it('finds mounted and cloned claims, every form of Secret reference, and the claims a StatefulSet would adopt', () => {
    const pod = {
      volumes: [
        { name: 'a', persistentVolumeClaim: { claimName: 'data-shop-postgres-0' } },
        {
          name: 'b',
          ephemeral: {
            volumeClaimTemplate: {
              spec: { dataSourceRef: { kind: 'PersistentVolumeClaim', name: 'cloned' } },
            },
          },
        },
        { name: 'c', projected: { sources: [{ secret: { name: 'projected' } }] } },
        { name: 'd', csi: { driver: 'x', nodePublishSecretRef: { name: 'csi-ref' } } },
      ],
      containers: [{ name: 'app', envFrom: [{ secretRef: { name: 'from-env' } }] }],
      imagePullSecrets: [{ name: 'pull' }],
    };
    const refs = referencesOf([
      workload('Deployment', 'shop', { template: { spec: pod } }),
      workload('StatefulSet', 'shop-postgres', {
        replicas: 2,
        volumeClaimTemplates: [{ metadata: { name: 'data' } }],
        template: { spec: { containers: [] } },
      }),
    ]);
    expect(refs.map((r) => `${r.kind}/${r.name}`).sort()).toEqual(
      [
        'PersistentVolumeClaim/cloned',
        // Mounted by the Deployment, and adopted by the StatefulSet (two replicas, two claims).
        'PersistentVolumeClaim/data-shop-postgres-0',
        'PersistentVolumeClaim/data-shop-postgres-0',
        'PersistentVolumeClaim/data-shop-postgres-1',
        'Secret/csi-ref',
        'Secret/from-env',
        'Secret/projected',
        'Secret/pull',
      ].sort(),
    );
    expect(refs.find((r) => r.name === 'csi-ref')?.field).toBe(
      'Deployment/shop:spec.template.spec.volumes[3].csi.nodePublishSecretRef.name',
    );
    expect(refs.find((r) => r.name === 'data-shop-postgres-1')?.field).toBe(
      'StatefulSet/shop-postgres:spec.volumeClaimTemplates[0]',
    );
  });
});

describe('checkIdentity: ownership is read from the object, never inferred from its name', () => {
  const ref = (name: string) => [
    {
      kind: 'PersistentVolumeClaim' as const,
      name,
      field: 'StatefulSet/shop-postgres:spec.volumeClaimTemplates[0]',
    },
  ];
  const labelled = (deployment: string, listener = 'lis-1') => ({
    [LABELS.managedBy]: 'mooring',
    [LABELS.deploymentId]: deployment,
    [LABELS.listenerId]: listener,
  });

  it("refuses a claim labelled for another deployment though its name is this deployment's (a deleted one of the same name)", () => {
    const find = finder([claim('data-shop-postgres-0', labelled('dep-a'))]);
    expect(codeOf(() => checkIdentity(ref('data-shop-postgres-0'), find, MINE))).toMatch(
      /^MOORING_E_FOREIGN_OBJECT: StatefulSet\/shop-postgres:spec.volumeClaimTemplates\[0\] would adopt PersistentVolumeClaim "data-shop-postgres-0", which is labelled for deployment dep-a/,
    );
  });

  it('refuses one labelled for another listener, and allows its own, an unlabelled one and one not there', () => {
    const find = finder([
      claim('theirs', labelled('dep-b', 'lis-2')),
      claim('mine', labelled('dep-b')),
      claim('users', undefined),
    ]);
    expect(codeOf(() => checkIdentity(ref('theirs'), find, MINE))).toContain('labelled for listener lis-2');
    for (const name of ['mine', 'users', 'absent'])
      expect(codeOf(() => checkIdentity(ref(name), find, MINE))).toBeUndefined();
  });
});
