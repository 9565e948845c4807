/**
 * An owned-object listing cut to the shards a replica holds (ADR 0015): an object belongs to the
 * shard of the deployment id in its labels, never to one guessed from its name.
 */
import { LABELS } from '../labels.ts';
import { type Inventory, inventoryOf } from './list.ts';
import { isStub } from './shard-entries.ts';

/**
 * `inventory` with only the objects whose deployment is in a held shard (`holds`); unchanged
 * without `holds` (one shard). An object without a deployment id is left out: the orphan pass
 * groups by that label and never prunes such an object anyway. So is a stub (shard-entries.ts):
 * the listing kept no entry for the rest of its deployment's objects, so it is no orphan pass's.
 */
export function shardInventory(
  inventory: Inventory,
  holds: ((deploymentId: string) => boolean) | undefined,
): Inventory {
  if (!holds) return inventory;
  const mine = inventory.objects.filter((o) => {
    const id = o.metadata.labels?.[LABELS.deploymentId];
    // A stub is of a deployment the listing did not keep: its other objects are not listed.
    return id !== undefined && holds(id) && !isStub(o);
  });
  return mine.length === inventory.objects.length ? inventory : inventoryOf(mine);
}
