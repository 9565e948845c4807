import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../src/objects/kube-object.ts';
import { claimPrefixes, isClaimOf } from '../../src/reconcile/steps.ts';
import { heapHeldBy } from '../heap-held.ts';

const statefulSet = (name: string): KubeObject => ({
  apiVersion: 'apps/v1',
  kind: 'StatefulSet',
  metadata: { name, namespace: 'apps' },
  spec: { volumeClaimTemplates: [{ metadata: { name: 'data' } }] },
});
const service: KubeObject = { apiVersion: 'v1', kind: 'Service', metadata: { name: 's', namespace: 'apps' } };

describe('claimPrefixes (kept with a converged pass for the deployment life)', () => {
  it('names the claims of each StatefulSet template', () => {
    const prefixes = claimPrefixes([service, statefulSet('shop-postgres')]);
    expect(prefixes).toEqual(['data-shop-postgres-']);
    const pvc = (name: string) => ({ ...service, kind: 'PersistentVolumeClaim', metadata: { name } });
    expect(isClaimOf(prefixes, pvc('data-shop-postgres-0'))).toBe(true);
    expect(isClaimOf(prefixes, pvc('data-shop-postgres-x'))).toBe(false);
  });

  it('gives every deployment without claims one shared empty list', () => {
    expect(claimPrefixes([service])).toBe(claimPrefixes([]));
    expect(Object.isFrozen(claimPrefixes([]))).toBe(true);
  });

  it('keeps a list of one prefix within 130 bytes (280 when grown by a push, its text in parts) (measured on the heap)', async () => {
    const deployments = 10_000;
    const names = Array.from({ length: deployments }, (_, i) => [
      service,
      statefulSet(`deployment-${String(i).padStart(6, '0')}-postgres`),
    ]);
    await heapHeldBy(() => names.map(claimPrefixes));
    const bytes = await heapHeldBy(() => names.map(claimPrefixes));
    // A list (32 bytes), its one slot (24) and a 34-character flat string (56), and the slot of
    // the outer list: a list grown by a push (152 bytes of room) and a string in parts held more.
    expect(bytes / deployments).toBeLessThan(130);
  });
});
