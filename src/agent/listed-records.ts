/**
 * What the poller keeps of its last complete listing, and how it answers for the next listing's
 * records before they are parsed (`known`) and once they are (`slim`):
 * - its own deployments that it took, whole (`held`): one listed again unchanged is the record
 *   held, neither parsed nor kept twice;
 * - another shard's, as a sketch (record-sketch.ts, ADR 0015);
 * - its own that wait for memory, as a sketch too: a listener far larger than the heap otherwise
 *   holds every waiting record whole, from its page to the end of the listing and then in the
 *   collision memo until the next one, which ran an agent of 10,000 deployments under 160 MiB out
 *   of heap. One is parsed whole again only when the heap would take it (`waits` says so).
 */
import equal from 'fast-deep-equal';
import type { DeploymentRecord } from '../contract/index.ts';
import type { DesiredDeployment } from './poll-cycle.ts';
import { isSketch, RecordSketches, sketch } from './record-sketch.ts';

/** The deployments a replica works on; undefined: all. */
type Scope = ((deploymentId: string) => boolean) | undefined;

export interface ListedRecordsOptions {
  listenerId: string;
  /** Why a deployment would wait for memory if taken now, or undefined (PollerOptions.waits). */
  waits?: ((deployment: DeploymentRecord) => string | undefined) | undefined;
}

export class ListedRecords {
  readonly #o: ListedRecordsOptions;
  #held = new Map<string, DeploymentRecord>();
  readonly #others = new RecordSketches();
  readonly #waiting = new RecordSketches();

  constructor(options: ListedRecordsOptions) {
    this.#o = options;
  }

  /** This listener's records the last complete listing took, by id. */
  get held(): ReadonlyMap<string, DeploymentRecord> {
    return this.#held;
  }

  /**
   * The record kept for the raw one just listed, when it stands for it: the held record when the
   * raw one says the same member by member; a sketch when the raw one's sketched members are the
   * same and it is another shard's, or still waits for memory. Else undefined, and the raw record
   * is parsed. An idle poll at 10,000 deployments spent most of its CPU parsing and digesting every
   * record again to learn that nothing changed.
   */
  known(raw: unknown, inScope: Scope): DeploymentRecord | undefined {
    const { id, updated_at: updatedAt } = (raw ?? {}) as { id?: unknown; updated_at?: unknown };
    if (typeof id !== 'string') return undefined;
    try {
      if (inScope !== undefined && !inScope(id)) return this.#others.known(id, raw);
      const held = this.#held.get(id);
      if (held !== undefined) return held.updated_at === updatedAt && equal(held, raw) ? held : undefined;
      const waiting = this.#waiting.known(id, raw);
      return waiting !== undefined && this.#o.waits?.(waiting) !== undefined ? waiting : undefined;
    } catch (err) {
      // Nested too deep to compare: parsed, then the resolver refuses it alone.
      if (err instanceof RangeError) return undefined;
      throw err;
    }
  }

  /** What the listing holds of a record it just parsed: its sketch when this replica will not take it now. */
  slim(record: DeploymentRecord, inScope: Scope): DeploymentRecord {
    if (record.source_config?.listener_id !== this.#o.listenerId) return record;
    if (inScope !== undefined && !inScope(record.id)) return sketch(record);
    return this.#o.waits?.(record) === undefined ? record : sketch(record);
  }

  /** Keeps the sketches of the other shards' records of the listing just completed. */
  keepOthers(records: Iterable<DeploymentRecord>): void {
    this.#others.keep(records);
  }

  /**
   * The poll's deployments are resolved: the records of those taken and kept (`retains`) are held
   * for the next listing, and those that wait for memory are kept as sketches; a refused one is
   * kept in no way (it is parsed and judged again). Returns whether a record listed whole was
   * sketched here (what still holds the listing's records must then let them go).
   */
  settle(deployments: readonly DesiredDeployment[], retains: (id: string) => boolean): boolean {
    const held = new Map<string, DeploymentRecord>();
    const waiting: DeploymentRecord[] = [];
    let sketchedWhole = false;
    for (const { deployment, refused, waitsForMemory } of deployments) {
      if (refused) continue;
      if (waitsForMemory === undefined && retains(deployment.id) && !isSketch(deployment)) {
        held.set(deployment.id, deployment);
        continue;
      }
      sketchedWhole ||= !isSketch(deployment);
      waiting.push(deployment);
    }
    this.#held = held;
    this.#waiting.keep(waiting);
    return sketchedWhole;
  }
}
