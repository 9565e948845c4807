/**
 * Property (issue 39): for random pairs of records in one namespace, nothing of one (an object,
 * a volume, a Secret) is ever referenced or written by the other. Record A's objects stand live
 * (A running, being deleted, or gone with only its kept claims left); record B, of any name
 * (A's own, a colliding one, one named after A's objects), refers to A's objects in every form a
 * pod can. B passes through what the agent runs before a write: the name collisions of the poll,
 * the renderer, the identity check of its references (identity.ts) and the ownership check of
 * each write (kube/ownership.ts). Either B is refused on the way, or it neither refers to nor
 * writes anything of A's.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { collisionsOf } from '../../src/reconcile/desired-resolver.ts';
import type { DeploymentRecord, ResourceSpecRecord } from '../../src/contract/index.ts';
import { MooringError } from '../../src/errors.ts';
import { foreignOwner } from '../../src/kube/ownership.ts';
import type { KubeObject } from '../../src/objects/kube-object.ts';
import { formatObjectId, objectId } from '../../src/objects/object-id.ts';
import { checkIdentity, referencesOf } from '../../src/reconcile/identity.ts';
import { baseNameOf, objectNames } from '../../src/render/names.ts';
import { RenderError, renderDeployment } from '../../src/render/index.ts';
import { deployment, settings } from '../render/fixtures.ts';

const NAMESPACE = 'apps';
const LISTENER = '0b7f5a52-3c1e-4f0a-9d2b-6f1e2d3c4b5a';
const A_ID = '11111111-1111-4111-8111-111111111111';
const B_ID = '22222222-2222-4222-8222-222222222222';
/** Two names of one base name (a 24-bit suffix collision). */
const COLLIDING = [
  'tenant-shop-database-of-record-number-6514',
  'tenant-shop-database-of-record-number-9612',
];
const RENDER_SETTINGS = settings({
  exposure: { kind: 'ingress', tls: { clusterIssuer: 'letsencrypt' }, allowedHosts: ['*.apps.example'] },
});

/** A's objects as they stand: rendered and applied, its StatefulSets' claims made, its certificate issued. */
function liveObjectsOf(a: DeploymentRecord, state: 'live' | 'deleting' | 'gone'): KubeObject[] {
  const objects = renderDeployment({ deployment: a, settings: RENDER_SETTINGS }).objects as KubeObject[];
  const claims: KubeObject[] = [];
  for (const o of objects) {
    if (o.kind !== 'StatefulSet') continue;
    type Template = { metadata: { name: string; labels: Record<string, string> } };
    const spec = (o as unknown as { spec: { volumeClaimTemplates?: Template[] } }).spec;
    for (const t of spec.volumeClaimTemplates ?? []) {
      claims.push({
        apiVersion: 'v1',
        kind: 'PersistentVolumeClaim',
        metadata: {
          name: `${t.metadata.name}-${o.metadata.name}-0`,
          namespace: NAMESPACE,
          labels: t.metadata.labels,
        },
      });
    }
  }
  if (state === 'gone') return claims;
  // cert-manager's Secret for A's Ingress: without mooring's labels.
  const tls: KubeObject = {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: `${objectNames(baseNameOf(a.name)).apiServer}-tls`, namespace: NAMESPACE },
  };
  return [...objects, ...claims, tls];
}

/** B's ResourceSpec: each of `targets` referred to in one of the forms a pod has. */
function referring(targets: { kind: string; name: string; form: number }[]): {
  spec: ResourceSpecRecord;
  secretRefs: { name: string; secret_name: string; secret_key: string }[];
} {
  const volumes: Record<string, unknown>[] = [];
  const env: Record<string, unknown>[] = [];
  const envFrom: Record<string, unknown>[] = [];
  const pull: { name: string }[] = [];
  const secretRefs: { name: string; secret_name: string; secret_key: string }[] = [];
  targets.forEach(({ kind, name, form }, i) => {
    const v = `v${i}`;
    if (kind === 'PersistentVolumeClaim') {
      if (form % 2 === 0) volumes.push({ name: v, persistentVolumeClaim: { claimName: name } });
      else {
        const dataSource = { kind: 'PersistentVolumeClaim', name };
        const spec = {
          accessModes: ['ReadWriteOnce'],
          resources: { requests: { storage: '1Gi' } },
          dataSource,
        };
        volumes.push({ name: v, ephemeral: { volumeClaimTemplate: { spec } } });
      }
      return;
    }
    switch (form % 7) {
      case 0:
        volumes.push({ name: v, secret: { secretName: name } });
        break;
      case 1:
        volumes.push({ name: v, projected: { sources: [{ secret: { name } }] } });
        break;
      case 2:
        volumes.push({
          name: v,
          csi: { driver: 'secrets-store.csi.k8s.io', nodePublishSecretRef: { name } },
        });
        break;
      case 3:
        envFrom.push({ secretRef: { name } });
        break;
      case 4:
        env.push({ name: `E${i}`, valueFrom: { secretKeyRef: { name, key: 'k' } } });
        break;
      case 5:
        pull.push({ name });
        break;
      default:
        secretRefs.push({ name: `REF_${i}`, secret_name: name, secret_key: 'k' });
    }
  });
  const mounts = volumes.map((v) => ({ name: v.name, mountPath: `/m/${v.name}` }));
  const sidecar = { name: 'side', image: 'busybox:1', env, envFrom, volumeMounts: mounts };
  return {
    spec: { volumes, sidecars: [sidecar], image_pull_secrets: pull } as ResourceSpecRecord,
    secretRefs,
  };
}

const names = fc.constantFrom(
  'shop',
  'shop-redis',
  'shop-postgres',
  'shop-env',
  'Shop',
  'shop-tls',
  ...COLLIDING,
);

describe('two records in one namespace', () => {
  it('nothing of one is referenced or written by the other (collisions, render, identity, ownership)', () => {
    /** How each run ended, so that a property every run escapes early cannot pass. */
    const ends = { collision: 0, render: 0, identity: 0, ownership: 0, admitted: 0 };
    fc.assert(
      fc.property(
        names,
        names,
        fc.constantFrom('live' as const, 'deleting' as const, 'gone' as const),
        fc.boolean(),
        fc.array(fc.tuple(fc.nat(), fc.nat()), { minLength: 1, maxLength: 3 }),
        (aName, bName, state, bOlder, picks) => {
          const a = {
            ...deployment({ name: aName }),
            id: A_ID,
            created_at: bOlder ? '2026-02-01T00:00:00Z' : '2026-01-01T00:00:00Z',
            status: state === 'deleting' ? 'AWAITING_DELETE' : 'READY',
          } as DeploymentRecord;
          const live = liveObjectsOf(a, state);
          const byId = new Map(live.map((o) => [objectId(o), o]));
          // A's Secrets and claims, and two of nobody's (B may refer to those).
          const reachable = [
            ...live.filter((o) => o.kind === 'Secret' || o.kind === 'PersistentVolumeClaim'),
            { kind: 'Secret', metadata: { name: 'app-config' } },
            { kind: 'PersistentVolumeClaim', metadata: { name: 'scratch' } },
          ];
          const targets = picks.map(([i, form]) => {
            const o = reachable[i % reachable.length]!;
            return { kind: o.kind, name: o.metadata.name ?? '', form };
          });
          const { spec, secretRefs } = referring(targets);
          const b = {
            ...deployment({ name: bName, spec, secret_references: secretRefs }),
            id: B_ID,
            created_at: bOlder ? '2026-01-01T00:00:00Z' : '2026-02-01T00:00:00Z',
          } as DeploymentRecord;

          // The poll: A, unless gone, holds its names (a deployment being deleted does while it owns objects).
          const records = state === 'gone' ? [b] : [a, b];
          const { refused } = collisionsOf(records, { holdsObjects: () => true });
          if (refused.has(B_ID)) return void ends.collision++;
          // A running deployment refused by the poll has no objects: B older than A, same names.
          if (state !== 'gone' && refused.has(A_ID)) return;
          let objects: KubeObject[];
          try {
            objects = renderDeployment({ deployment: b, settings: RENDER_SETTINGS }).objects as KubeObject[];
          } catch (err) {
            if (err instanceof RenderError) return void ends.render++;
            throw err;
          }
          const refs = referencesOf(objects);
          try {
            checkIdentity(refs, (kind, ns, name) => byId.get(formatObjectId(kind, ns, name)), {
              namespace: NAMESPACE,
              deploymentId: B_ID,
              listenerId: LISTENER,
            });
          } catch (err) {
            if (err instanceof MooringError && err.code === 'MOORING_E_FOREIGN_OBJECT')
              return void ends.identity++;
            throw err;
          }
          // Each write is judged by the live object's labels (ADR 0007): one of A's is refused.
          const writes = objects.filter((o) => {
            const liveObject = byId.get(objectId(o));
            return liveObject === undefined || foreignOwner(liveObject, o, 'mooring') === undefined;
          });
          if (writes.length < objects.length) return void ends.ownership++;
          ends.admitted++;
          // B admitted: nothing of A's referred to, nothing of A's written.
          for (const r of refs) expect(byId.has(formatObjectId(r.kind, NAMESPACE, r.name))).toBe(false);
          for (const o of objects) expect(byId.has(objectId(o))).toBe(false);
        },
      ),
      { numRuns: 400 },
    );
    // Each way out is taken (the identity check on its own too), and some pairs are admitted; the
    // ownership check of writes is the backstop the name collisions leave nothing to.
    for (const end of ['collision', 'render', 'identity', 'admitted'] as const)
      expect(ends[end], end).toBeGreaterThan(0);
  });
});
