/**
 * What the poller keeps of a deployment record it will not work on now: another shard's (ADR 0015)
 * or one of its own that waits for memory. Only the members that collisions (names, URLs,
 * tenants), the listing's flags, the status and the revision cache read. Every replica judges
 * collisions over the whole listing, so it must list every record, but holding each one whole
 * made every replica's heap follow the listener instead of its share; and a listener far larger
 * than the heap held every waiting record whole from its first page to its last. A record listed
 * again with the same sketch is taken as its sketch, unparsed; one that differs is parsed again.
 */
import equal from 'fast-deep-equal';
import type { DeploymentRecord } from '../contract/index.ts';

const TOP = [
  'id',
  'name',
  'source',
  'status',
  'tenant_id',
  'created_at',
  'updated_at',
  'latest_revision_id',
  'active_revision_id',
] as const;
const SOURCE_CONFIG = ['listener_id', 'deployment_type', 'custom_url'] as const;

/**
 * What marks a sketch, as a member no listing can give (a symbol, not enumerable, so neither
 * compared nor serialised): one is never resolved, rendered or compared as a whole record.
 */
const SKETCH = Symbol('mooring.sketch');

/** Whether `record` is a sketch (then only its sketched members are there). */
export function isSketch(record: DeploymentRecord): boolean {
  return Object.hasOwn(record, SKETCH);
}

/** The sketch of a parsed record (itself when it is one). */
export function sketch(record: DeploymentRecord): DeploymentRecord {
  if (isSketch(record)) return record;
  const out = sketchOf(record) as DeploymentRecord;
  Object.defineProperty(out, SKETCH, { value: true });
  return out;
}

/**
 * The sketched members of `record` (parsed or as listed): those present, copied as they are. A
 * member of the wrong type is copied too, so it differs from the sketch of a parsed record.
 */
function sketchOf(record: unknown): Record<string, unknown> | undefined {
  if (typeof record !== 'object' || record === null) return undefined;
  const out = pick(record, TOP);
  const config = (record as { source_config?: unknown }).source_config;
  if (typeof config !== 'object' || config === null) {
    if (config !== undefined) out.source_config = config;
    return out;
  }
  const sketched = pick(config, SOURCE_CONFIG);
  const listenerConfig = (config as { listener_config?: unknown }).listener_config;
  if (typeof listenerConfig === 'object' && listenerConfig !== null)
    sketched.listener_config = pick(listenerConfig, ['k8s_namespace']);
  else if (listenerConfig !== undefined) sketched.listener_config = listenerConfig;
  out.source_config = sketched;
  return out;
}

function pick(from: object, keys: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of keys) if (Object.hasOwn(from, key)) out[key] = (from as Record<string, unknown>)[key];
  return out;
}

/**
 * The sketches of some of the last listing's records, by id. A sketch is typed as a record for
 * the listing it joins, but holds only the sketched members (`isSketch`).
 */
export class RecordSketches {
  #byId = new Map<string, DeploymentRecord>();

  /** The sketch of `id` when `raw` (as listed now) says what it says in every sketched member. */
  known(id: string, raw: unknown): DeploymentRecord | undefined {
    const kept = this.#byId.get(id);
    const listed = sketchOf(raw);
    if (kept === undefined || listed?.updated_at !== kept.updated_at) return undefined;
    return equal(listed, kept) ? kept : undefined;
  }

  /** Keeps the sketches of `records` (of the last listing) and forgets the rest. */
  keep(records: Iterable<DeploymentRecord>): void {
    const next = new Map<string, DeploymentRecord>();
    for (const d of records) next.set(d.id, sketch(d));
    this.#byId = next;
  }

  get size(): number {
    return this.#byId.size;
  }
}
