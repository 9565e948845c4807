/**
 * What the agent knows of each deployment between polls: its desired state as last taken, the
 * desired hash its last successful reconcile applied, and what that reconcile verified (the
 * resync's shortcut). A deployment's entries are forgotten together, when it leaves the listing;
 * what a reconcile found is kept only while the desired state it worked on is still the one taken.
 */
import type { RevisionRecord } from '../contract/index.ts';
import type { Redactor } from '../redact.ts';
import type { ConvergedPass } from '../reconcile/converged.ts';
import { namespaceOf, secretValues } from '../reconcile/steps.ts';
import type { ColdPass } from './cold-start.ts';
import type { DesiredDeployment } from './poll-cycle.ts';

/**
 * The secret values of a deployment's desired state: its record's `secrets[].value`, and those of
 * its revision should the control plane send a revision with `secrets` (the tolerant parse keeps
 * members the interface does not list).
 */
export function secretValuesOf(d: Pick<DesiredDeployment, 'deployment' | 'revision'>): string[] {
  const fromRevision = (d.revision as { secrets?: unknown } | undefined)?.secrets;
  const revisionValues = Array.isArray(fromRevision)
    ? fromRevision.map((s: { value?: unknown }) => s?.value).filter((v): v is string => typeof v === 'string')
    : [];
  return [...secretValues(d.deployment), ...revisionValues];
}

/**
 * What reads `d`'s revision when a poll resolved it without reading it (`pendingRevision`);
 * undefined otherwise. Its secret values are known to the redactor from then on, as those of a
 * revision read at the poll.
 */
export function revisionLoader(
  d: DesiredDeployment,
  load: ((deploymentId: string, revisionId: string) => Promise<RevisionRecord>) | undefined,
  redactor: Pick<Redactor, 'set'> | undefined,
): (() => Promise<RevisionRecord>) | undefined {
  const pending = d.pendingRevision;
  if (pending === undefined || !load) return undefined;
  return async () => {
    const revision = await load(d.deployment.id, pending);
    redactor?.set(d.deployment.id, secretValuesOf({ deployment: d.deployment, revision }));
    return revision;
  };
}

export class DesiredBook {
  readonly #desired = new Map<string, DesiredDeployment>();
  /** What each key's last reconcile returned as `converged`, passed to its next. */
  readonly #converged = new Map<string, ConvergedPass>();
  /** Desired hash of each key's last successful reconcile. */
  readonly #reconciledHash = new Map<string, string>();
  /**
   * Deployments that wait for memory, their records dropped (`park`): only the id is kept, and
   * the next poll's listing brings the record again.
   */
  readonly #parked = new Set<string>();

  get(id: string): DesiredDeployment | undefined {
    return this.#desired.get(id);
  }

  /** Whether `id` is listed: taken, or parked. */
  has(id: string): boolean {
    return this.#desired.has(id) || this.#parked.has(id);
  }

  /** The ids taken or parked, as a copy (safe to forget while walking it). */
  ids(): string[] {
    return [...this.#desired.keys(), ...this.#parked];
  }

  /** Takes `d` as its deployment's desired state. */
  set(d: DesiredDeployment): void {
    this.#parked.delete(d.deployment.id);
    this.#desired.set(d.deployment.id, d);
  }

  /**
   * Drops what is kept of `id` but its id, while it waits for memory: a deployment never
   * reconciled holds nothing the agent needs until it is taken again from a later listing.
   */
  park(id: string): void {
    this.#desired.delete(id);
    this.#converged.delete(id);
    this.#parked.add(id);
  }

  /** Whether `id` waits for memory with its record dropped. */
  parked(id: string): boolean {
    return this.#parked.has(id);
  }

  /** How many deployments wait with their records dropped. */
  get parkedCount(): number {
    return this.#parked.size;
  }

  /** Forgets everything of `id` (it left the listing). */
  forget(id: string): void {
    this.#parked.delete(id);
    this.#desired.delete(id);
    this.#reconciledHash.delete(id);
    this.#converged.delete(id);
  }

  /** What `id`'s previous reconcile verified, handed over once: a reconcile that throws passes nothing on. */
  takeConverged(id: string): ConvergedPass | undefined {
    const converged = this.#converged.get(id);
    this.#converged.delete(id);
    return converged;
  }

  /**
   * A reconcile of `worked` succeeded. Nothing is kept of a deployment that left the listing
   * while it ran, nor what it verified once its desired state changed meanwhile.
   */
  succeeded(worked: DesiredDeployment, converged: ConvergedPass | undefined): void {
    const id = worked.deployment.id;
    const current = this.#desired.get(id);
    if (current) this.#reconciledHash.set(id, worked.hash);
    if (converged && current?.hash === worked.hash) this.#converged.set(id, converged);
  }

  /** The passes held now, each with its deployment's namespace (the restart memo's content). */
  *convergedPasses(): Generator<[string, ColdPass]> {
    for (const [id, pass] of this.#converged) {
      const d = this.#desired.get(id);
      const namespace = d && namespaceOf(d.deployment);
      if (namespace) yield [id, { ...pass, namespace }];
    }
  }

  /**
   * Whether the agent holds `d` already, so that a short heap does not hold it back: a reconcile
   * of it succeeded since it was taken, or it is being deleted (which frees what it holds).
   */
  holds(d: DesiredDeployment): boolean {
    return this.#reconciledHash.has(d.deployment.id) || d.deployment.status === 'AWAITING_DELETE';
  }

  /** Whether `d`'s desired state is the one its last successful reconcile applied. */
  reconciled(d: DesiredDeployment): boolean {
    return this.#reconciledHash.get(d.deployment.id) === d.hash;
  }

  /** Whether `d`'s desired state differs from the one its last successful reconcile applied. */
  changed(d: DesiredDeployment): boolean {
    const previous = this.#reconciledHash.get(d.deployment.id);
    return previous !== undefined && previous !== d.hash;
  }
}
