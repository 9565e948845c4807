/**
 * The converged passes of a start's cold listings (ADR 0008, ADR 0010): found by a listing's judge
 * or carried by the restart memo, each taken once by its deployment's first reconcile. While a
 * cold listing runs it also tallies, per deployment the restart memo vouched for, what the listing
 * found of its objects, which is all a judge-only listing (one that keeps no entries) decides that
 * deployment by.
 */
import type { KubeObject } from '../objects/kube-object.ts';
import { shortcutRefuses, type ConvergedPass } from '../reconcile/converged.ts';
import { assessObject, type Health, HealthTally } from '../reconcile/health.ts';
import { isClaimOf } from '../reconcile/steps.ts';
import type { ColdPass } from './cold-start.ts';

/** What a judge-only listing found of one deployment (`ColdPasses.found`). */
interface Found {
  tally: HealthTally;
  differs: boolean;
}

/** A converged pass a judge-only listing vouched for, with the health of what it listed. */
export interface ListedPass {
  pass: ConvergedPass;
  health: Health;
}

/**
 * The converged passes of the latest cold listing, each taken at most once, by its deployment's
 * first reconcile, and only for the key and namespace it was found for. A pass only lets that
 * reconcile skip rendering: the shortcut still checks each listed object against the memo.
 */
export class ColdPasses {
  readonly #passes = new Map<string, ColdPass>();
  /**
   * The deployments a restart memo vouched for, until their pass is taken: kept through a new cold
   * listing (a start's listing given up and listed again), which forgets the passes themselves.
   */
  readonly #restored = new Set<string>();

  /**
   * What the current cold listing found of each deployment a restart memo vouched for: its objects
   * at their versions (a health tally), or that one was not (`differs`).
   */
  readonly #found = new Map<string, Found>();
  /** Deployments a judge-only listing found converged, with their health, until taken. */
  readonly #listed = new Map<string, HealthTally>();

  /** Forgets every pass (a new cold listing starts). */
  clear(): void {
    this.#passes.clear();
    this.#found.clear();
    this.#listed.clear();
  }

  /**
   * A listed object (a volume claim aside) of a deployment a restart memo vouched for, and whether
   * the memo holds it at its version for `key`. A few bytes per deployment: what a judge-only
   * listing, which keeps no entries, decides its deployments by.
   */
  found(deploymentId: string, key: string, live: KubeObject, verified: boolean): void {
    const pass = this.#passes.get(deploymentId);
    if (pass === undefined || !this.#restored.has(deploymentId)) return;
    let f = this.#found.get(deploymentId);
    if (f === undefined) {
      f = { tally: new HealthTally(), differs: false };
      this.#found.set(deploymentId, f);
    }
    // What the shortcut would refuse (converged.ts) makes its first reconcile a full one.
    const same = verified && pass.key === key && live.metadata.namespace === pass.namespace;
    if (!same || shortcutRefuses(live)) f.differs = true;
    else f.tally.add(assessObject(live));
  }

  /**
   * A cold listing has ended. When it was judge-only and handed every object once, each deployment
   * the restart memo vouched for whose objects it found all at their versions, as many as its pass
   * says, is converged: its first reconcile takes `takeListed` and lists nothing.
   */
  listed(judgeOnly: boolean, complete: boolean): void {
    if (judgeOnly && complete) {
      for (const [id, f] of this.#found) {
        const pass = this.#passes.get(id);
        if (pass && !f.differs && f.tally.count === pass.objects) this.#listed.set(id, f.tally);
      }
    }
    this.#found.clear();
  }

  /**
   * The deployment's pass and health when a judge-only listing found it converged (`listed`) for
   * `key` in `namespace`; taken once, forgotten either way.
   */
  takeListed(deploymentId: string, key: string, namespace: string): ListedPass | undefined {
    const tally = this.#listed.get(deploymentId);
    if (tally === undefined) return undefined;
    this.#listed.delete(deploymentId);
    const pass = this.take(deploymentId, key, namespace);
    return pass && { pass, health: tally.health() };
  }

  set(deploymentId: string, pass: ColdPass): void {
    this.#passes.set(deploymentId, pass);
  }

  /** A pass the restart memo carried (ADR 0010): set, and the deployment counted as `restored`. */
  restore(deploymentId: string, pass: ColdPass): void {
    this.#passes.set(deploymentId, pass);
    this.#restored.add(deploymentId);
  }

  /**
   * Deployments a restart memo vouches for, known before its passes are taken over (a start's
   * first listing, which judges each record's room on the heap as its page comes in, runs before
   * the cold listing that loads them): counted as `restored` from now on.
   */
  vouch(deploymentIds: Iterable<string>): void {
    for (const id of deploymentIds) this.#restored.add(id);
  }

  /** Whether a restart memo vouched for the deployment and its first reconcile has not taken it yet. */
  restored(deploymentId: string): boolean {
    return this.#restored.has(deploymentId);
  }

  /** Forgets the vouched deployments a complete listing no longer names (deleted while the agent was down). */
  keepListed(listed: ReadonlySet<string>): void {
    for (const id of this.#restored) if (!listed.has(id)) this.#restored.delete(id);
  }

  /** How many deployments a restart memo vouched for are not taken yet (the memory budget's reserve). */
  get restoring(): number {
    return this.#restored.size;
  }

  /** Whether `obj` is a volume claim of the pass held for the deployment at `key`. */
  holdsClaim(deploymentId: string, key: string, obj: KubeObject): boolean {
    const pass = this.#passes.get(deploymentId);
    return pass !== undefined && pass.key === key && isClaimOf(pass.claimPrefixes, obj);
  }

  /** The deployment's pass when it was found for `key` in `namespace`; forgotten either way. */
  take(deploymentId: string, key: string, namespace: string): ConvergedPass | undefined {
    const pass = this.#passes.get(deploymentId);
    this.#passes.delete(deploymentId);
    this.#restored.delete(deploymentId);
    if (!pass || pass.key !== key || pass.namespace !== namespace) return undefined;
    return { key: pass.key, objects: pass.objects, claimPrefixes: pass.claimPrefixes };
  }
}
