/**
 * What a sharded replica keeps of another shard's deployment record between polls (ADR 0015): only
 * the members that collisions (names, URLs, tenants) and the listing's flags read. Every replica
 * judges collisions over the whole listing, so it must list every record, but holding each one
 * whole made every replica's heap follow the listener instead of its share. A record listed again
 * with the same sketch is taken as its sketch, unparsed; one that differs is parsed again.
 */
import equal from 'fast-deep-equal';
import type { DeploymentRecord } from '../contract/index.ts';

const TOP = ['id', 'name', 'source', 'status', 'tenant_id', 'created_at', 'updated_at'] as const;
const SOURCE_CONFIG = ['listener_id', 'deployment_type', 'custom_url'] as const;

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
 * The sketches of the last listing's records of other shards, by id. A sketch is typed as a record
 * for the listing it joins, but holds only the sketched members: never resolved nor rendered, as
 * the poller hands on only its own shards' deployments.
 */
export class OtherShards {
  #byId = new Map<string, DeploymentRecord>();
  /** The sketches made, so that one listed again unchanged is not sketched anew. */
  readonly #made = new WeakSet<DeploymentRecord>();

  /** The sketch of `id` when `raw` (as listed now) says what it says in every sketched member. */
  known(id: string, raw: unknown): DeploymentRecord | undefined {
    const sketch = this.#byId.get(id);
    const listed = sketchOf(raw);
    if (sketch === undefined || listed?.updated_at !== sketch.updated_at) return undefined;
    return equal(listed, sketch) ? sketch : undefined;
  }

  /** Keeps the sketches of `records` (another shard's, of the last listing) and forgets the rest. */
  keep(records: Iterable<DeploymentRecord>): void {
    const next = new Map<string, DeploymentRecord>();
    for (const d of records) {
      const sketch = this.#made.has(d) ? d : (sketchOf(d) as DeploymentRecord);
      this.#made.add(sketch);
      next.set(d.id, sketch);
    }
    this.#byId = next;
  }
}
