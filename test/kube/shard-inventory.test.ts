import { describe, expect, it } from 'vitest';
import { shardOf } from '../../src/agent/shards.ts';
import { inventoryOf } from '../../src/kube/list.ts';
import { shardInventory } from '../../src/kube/shard-inventory.ts';
import { LABELS } from '../../src/labels.ts';
import type { KubeObject } from '../../src/objects/kube-object.ts';

const ids = Array.from(
  { length: 40 },
  (_, i) => `6f2b${String(i).padStart(4, '0')}-0000-4000-8000-000000000000`,
);

describe('shardInventory', () => {
  const obj = (name: string, id?: string) =>
    ({
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name, namespace: 'apps', labels: id ? { [LABELS.deploymentId]: id } : {} },
    }) as KubeObject;

  it("keeps the objects of held shards' deployments, by label, never by name", () => {
    const holds = (id: string) => shardOf(id, 4) === 0;
    const objects = [...ids.map((id) => obj(`svc-${id}`, id)), obj('no-label')];
    const mine = shardInventory(inventoryOf(objects), holds);
    expect(mine.objects.map((o) => o.metadata.labels?.[LABELS.deploymentId])).toEqual(ids.filter(holds));
    // A name that looks like a held deployment's does not make an object this replica's.
    const other = ids.find((id) => !holds(id))!;
    const decoy = obj(`svc-${ids.find(holds)}`, other);
    expect(shardInventory(inventoryOf([decoy]), holds).objects).toEqual([]);
  });

  it('is the listing itself with one shard', () => {
    const inventory = inventoryOf([obj('a', ids[0])]);
    expect(shardInventory(inventory, undefined)).toBe(inventory);
  });
});
