/**
 * A cycle's listing of the workloads health reads (Deployment, StatefulSet) without their spec and
 * status when nothing changed. Their slim entries keep replica counts and conditions, so a slim
 * listing used to ask for them whole: at 1,000 deployments about 5,000 objects of 7 KB every
 * cycle, and parsing them was most of an idle cycle's CPU. The API server moves an object's
 * resourceVersion on every write, its status's included, so an object listed with the uid and
 * resourceVersion its entry had in the previous listing still has that entry's spec and status.
 * Such a kind is listed as metadata only (half the bytes: managedFields stay), unchanged objects
 * carry their former spec and status over, and the few that changed are read again whole. When
 * more than CARRY_READ_LIMIT changed in one (namespace, kind), listing it whole costs less than
 * reading each, and that is done instead; where the previous listing had none of a kind in a
 * namespace (a cold start's listing, made before anything was applied), it is listed whole at once.
 */
import pMap from 'p-map';
import { type ListingPool, slim, slimKeepsMoreThanMetadata } from './compact-live.ts';
import type { KindInfo } from './kinds.ts';
import type { Inventory } from './list.ts';
import { LIST_PAGE_SIZE, type ObjectClient } from './object-client.ts';
import type { KubeObject } from './types.ts';

/** A listing's workload entries by kind and namespace (`scopeOf`), then by name. */
export type CarriedEntries = ReadonlyMap<string, ReadonlyMap<string, KubeObject>>;

function scopeOf(kind: string, namespace: string): string {
  return `${kind}/${namespace}`;
}

/** The entries of `inventory` a next listing can carry status from: the workloads'. */
export function carriedEntries(inventory: Inventory): CarriedEntries {
  const out = new Map<string, Map<string, KubeObject>>();
  for (const o of inventory.objects) {
    if (!slimKeepsMoreThanMetadata(o.kind)) continue;
    const scope = scopeOf(o.kind, o.metadata.namespace ?? '');
    let entries = out.get(scope);
    if (!entries) {
      entries = new Map();
      out.set(scope, entries);
    }
    entries.set(o.metadata.name ?? '', o);
  }
  return out;
}

/** The former entries of one kind in one namespace; undefined when there were none. */
export function carriedScope(
  carried: CarriedEntries | undefined,
  kind: string,
  namespace: string,
): ReadonlyMap<string, KubeObject> | undefined {
  const entries = carried?.get(scopeOf(kind, namespace));
  return entries && entries.size > 0 ? entries : undefined;
}

/** Changed objects of one (namespace, kind) read one by one; past this the kind is listed whole. */
export const CARRY_READ_LIMIT = 20;

/** Reads of changed objects in flight at once (within one list call's turn). */
const READ_CONCURRENCY = 4;

export interface CarryingList {
  client: ObjectClient;
  kind: KindInfo;
  namespace: string;
  selector: string;
  fieldManager: string;
  pool: ListingPool;
  /** The previous complete slim listing's entries of this kind in this namespace, by name. */
  previous: ReadonlyMap<string, KubeObject>;
  /** Refuses an item the listing cannot use (list.ts: one without a name); throws. */
  check: (item: KubeObject) => void;
}

/** Whether `before` is an entry of `item` as it still stands. */
function unchanged(item: KubeObject, before: KubeObject | undefined): before is KubeObject {
  const version = item.metadata.resourceVersion;
  return (
    before !== undefined &&
    typeof version === 'string' &&
    version !== '' &&
    before.metadata.resourceVersion === version &&
    before.metadata.uid === item.metadata.uid
  );
}

/** The slim entries of one (namespace, kind), with spec and status carried over where nothing changed. */
export async function listCarrying(l: CarryingList): Promise<KubeObject[]> {
  const { client, kind, namespace, selector, fieldManager, pool } = l;
  const whole = (item: KubeObject) => {
    l.check(item);
    return slim(item, fieldManager, pool);
  };
  // What changed, as placeholders naming the object (the listed item itself is let go); past the
  // limit only counted, since the kind is then listed whole.
  const changed = new Set<KubeObject>();
  let changes = 0;
  const listed = await client.list(
    kind.apiVersion,
    kind.kind,
    namespace,
    selector,
    (item) => {
      l.check(item);
      // A server without metadata-only answers sent the object whole: nothing to carry.
      if (item.spec !== undefined || item.status !== undefined) return slim(item, fieldManager, pool);
      const before = l.previous.get(item.metadata.name ?? '');
      if (unchanged(item, before)) return slim(item, fieldManager, pool, before);
      changes += 1;
      if (changes > CARRY_READ_LIMIT) return item;
      const placeholder: KubeObject = {
        apiVersion: item.apiVersion,
        kind: item.kind,
        metadata: { name: item.metadata.name, namespace: item.metadata.namespace ?? namespace },
      };
      changed.add(placeholder);
      return placeholder;
    },
    { metadataOnly: true, pageSize: LIST_PAGE_SIZE.workloadMetadata },
  );
  if (changes === 0) return listed;
  if (changes > CARRY_READ_LIMIT) {
    listed.length = 0;
    return client.list(kind.apiVersion, kind.kind, namespace, selector, whole);
  }
  const read = new Map<KubeObject, KubeObject | undefined>();
  await pMap(
    changed,
    async (placeholder) => {
      const got = await client.get(placeholder);
      // Gone since it was listed: the listing no longer has it (as a later listing would not).
      read.set(placeholder, got === undefined ? undefined : whole(got));
    },
    { concurrency: READ_CONCURRENCY },
  );
  return listed.flatMap((item) => {
    if (!changed.has(item)) return [item];
    const fresh = read.get(item);
    return fresh === undefined ? [] : [fresh];
  });
}
