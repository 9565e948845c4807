/**
 * The one owner of what the agent holds per deployment: a `TrackedDeployment` by id, the records
 * whose run is in flight (their report is still due), and the one call that forgets a deployment
 * everywhere the agent keeps something of it (status, runner, redactor, memory budget). Nothing
 * else keeps a map by deployment id outside of what it owns for its own job (docs/state.md).
 */
import type { Redactor } from '../redact.ts';
import { namespaceOf } from '../reconcile/steps.ts';
import type { ColdPass } from './cold-start.ts';
import { type Run, TrackedDeployment } from './deployment-record.ts';
import type { DesiredDeployment } from './poll-cycle.ts';
import type { DeploymentsDeps } from './deployments-deps.ts';
import type { StatusStore } from './status.ts';

/** Who else keeps something of a deployment, each told when it is forgotten. */
export interface DeploymentBookDeps {
  status: Pick<StatusStore, 'remove'>;
  redactor?: Pick<Redactor, 'forget'> | undefined;
  memory?: { forget(id: string): void } | undefined;
}

/** The runner's side of forgetting: its queue, backoff and parking of the key. */
export interface ForgetsKeys {
  forget(key: string): void;
}

export class DeploymentBook {
  readonly #d: DeploymentBookDeps;
  readonly #records = new Map<string, TrackedDeployment>();
  /** Records whose run started and whose report has not come yet (at most the runner's concurrency). */
  readonly #running = new Map<string, TrackedDeployment>();
  /** Deployments that wait for memory with their records dropped (`park`): only the id is kept. */
  readonly #parked = new Set<string>();

  constructor(deps: DeploymentBookDeps) {
    this.#d = deps;
  }

  get(id: string): TrackedDeployment | undefined {
    return this.#records.get(id);
  }

  /** The desired state held for `id`. */
  desired(id: string): DesiredDeployment | undefined {
    return this.#records.get(id)?.desired;
  }

  /** The ids held or parked, as a copy (safe to forget while walking it). */
  ids(): string[] {
    return [...this.#records.keys(), ...this.#parked];
  }

  get size(): number {
    return this.#records.size;
  }

  /** `d`'s record, made when its deployment is new. */
  recordOf(d: DesiredDeployment): TrackedDeployment {
    const id = d.deployment.id;
    this.#parked.delete(id);
    let record = this.#records.get(id);
    if (!record) {
      record = new TrackedDeployment(d);
      this.#records.set(id, record);
    }
    return record;
  }

  /** A run of `record` starts: its report is due (`reported`). */
  running(id: string, record: TrackedDeployment): void {
    this.#running.set(id, record);
  }

  /**
   * The report of `id`'s run came: the record it ran on, if one started. When that record was
   * forgotten meanwhile and no new one took its id, its secret values go now (its line was the
   * last use of them): call `done` once the line is written.
   */
  reported(id: string): { record: TrackedDeployment | undefined; run: Run | undefined; done: () => void } {
    const record = this.#running.get(id) ?? this.#records.get(id);
    this.#running.delete(id);
    const gone = !this.#records.has(id);
    return { record, run: record?.takeRun(), done: () => gone && this.#d.redactor?.forget(id) };
  }

  /**
   * Forgets `id` everywhere: its record (a run in flight reports into nothing), its status, the
   * runner's queue and backoff, the memory budget's wait. Its secret values stay known while a run
   * of it is in flight (that run may yet log what the API server quotes): its report forgets them.
   */
  forget(id: string, runner: ForgetsKeys): void {
    this.#parked.delete(id);
    this.#records.get(id)?.forget();
    this.#records.delete(id);
    runner.forget(id);
    this.#d.status.remove(id);
    this.#d.memory?.forget(id);
    if (!this.#running.has(id)) this.#d.redactor?.forget(id);
  }

  /**
   * Why `d` waits for memory (MemoryBudget.defers), or undefined: never while a run of it is in
   * flight, for a refusal, or for a deployment the agent holds already (or is deleting, or the
   * restart memo vouched for: `restored`).
   */
  waitsForMemory(
    d: Pick<DesiredDeployment, 'deployment' | 'refused'>,
    memory: DeploymentsDeps['memory'],
    restored?: DeploymentsDeps['restored'],
  ): string | undefined {
    const id = d.deployment.id;
    if (!memory || d.refused || this.#running.has(id)) return undefined;
    return memory.defers(
      id,
      this.#records.get(id)?.holds === true ||
        d.deployment.status === 'AWAITING_DELETE' ||
        restored?.(id) === true,
      this.#parked.has(id),
    );
  }

  /**
   * Drops what is kept of `id` but its id while it waits for memory: holding every listed record
   * is itself more than a heap far too small has; the next listing brings the record again.
   */
  park(id: string): void {
    this.#records.get(id)?.defer();
    this.#records.delete(id);
    this.#parked.add(id);
  }

  /** Whether `id` waits for memory with its record dropped. */
  parked(id: string): boolean {
    return this.#parked.has(id);
  }

  get parkedCount(): number {
    return this.#parked.size;
  }

  /** Whether anything of `id` is held here: a record, or a run whose report is due. */
  holds(id: string): boolean {
    return this.#records.has(id) || this.#running.has(id);
  }

  /** The passes held now, each with its deployment's namespace (the restart memo's content). */
  *convergedPasses(): Generator<[string, ColdPass]> {
    for (const [id, record] of this.#records) {
      const pass = record.converged;
      const namespace = pass && namespaceOf(record.desired.deployment);
      if (pass && namespace) yield [id, { ...pass, namespace }];
    }
  }
}
