/**
 * The resync's shortcut. A pass that wrote nothing and found nothing stale returns what it left
 * verified: the key its objects were rendered from and how many there are. The next pass with the
 * same key (a resync of an unchanged deployment) lists the deployment's objects first; when it owns
 * exactly that many (its StatefulSets' volumes aside) and each is still the version that pass
 * verified (src/kube/object-version.ts: any change to what we apply moves it), nothing can differ,
 * so the pass neither renders nor compares: it reports the objects unchanged, with their health.
 * Anything else (an object gone, added, edited, paused or terminating, a dry run, another key) takes the
 * full pass, which records the shortcut again once it finds everything converged.
 *
 * A pass that wrote passes on what it left verified too (`leftVerified`): each object the apply
 * wrote is remembered at the version its write answered, so a cold convergence records every
 * deployment it finished (the restart memo's content, ADR 0010) without waiting for a resync.
 */
import { entryFor } from '../kube/apply-context.ts';
import { isPaused } from '../kube/pause.ts';
import type { KubeObject } from '../objects/kube-object.ts';
import { objectId } from '../objects/object-id.ts';
import { assessObject, rollUp } from './health.ts';
import { type ReconcileResult, resultOf } from './result.ts';
import { isClaimOf } from './steps.ts';

/** What a converged pass left verified (`ReconcileResult.converged`, `ReconcileInput.converged`). */
export interface ConvergedPass {
  /** The input key the objects were rendered from. */
  key: string;
  /** How many objects the deployment renders. */
  objects: number;
  /** `<template>-<statefulset>-` of its StatefulSets' volume claims: owned, never rendered. */
  claimPrefixes: readonly string[];
}

/**
 * The pass's result without rendering, or undefined when the full pass must run. `verified` says
 * whether an object is still the version verified for `key` (the apply memo's question).
 */
export function shortcut(
  pass: ConvergedPass,
  owned: readonly KubeObject[],
  verified: (o: KubeObject, key: string) => boolean,
): ReconcileResult | undefined {
  const objects = owned.filter((o) => !isClaimOf(pass.claimPrefixes, o));
  if (objects.length !== pass.objects) return undefined;
  for (const o of objects) if (shortcutRefuses(o) || !verified(o, pass.key)) return undefined;
  const result = resultOf(
    { entries: objects.map((o) => entryFor(o, 'unchanged')), dryRun: false },
    rollUp(objects.map(assessObject)),
  );
  result.converged = pass;
  return result;
}

/**
 * Whether the shortcut refuses a live object whatever the memo says: one being deleted, or paused
 * (the full pass reports it paused, and leaves it alone).
 */
export function shortcutRefuses(o: KubeObject): boolean {
  return Boolean(o.metadata.deletionTimestamp) || isPaused(o);
}

/**
 * Whether a pass left every one of `desired` verified for `key`: the apply observed each (written,
 * or found converged) and the memo holds it at the version observed. Then the pass passes on what
 * it verified as a pass that wrote nothing does: the next shortcut still checks each listed
 * object's version, so an object changed since the write takes the full pass.
 */
export function leftVerified(
  desired: readonly KubeObject[],
  observed: ReadonlyMap<string, KubeObject>,
  key: string,
  verified: (o: KubeObject, key: string) => boolean,
): boolean {
  for (const o of desired) {
    const seen = observed.get(objectId(o));
    if (!seen || !verified(seen, key)) return false;
  }
  return true;
}
