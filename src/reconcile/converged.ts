/**
 * The resync's shortcut. A pass that wrote nothing and found nothing stale returns what it left
 * verified: the key its objects were rendered from and how many there are. The next pass with the
 * same key (a resync of an unchanged deployment) lists the deployment's objects first; when it owns
 * exactly that many (its StatefulSets' volumes aside) and each is still the version that pass
 * verified (src/kube/object-version.ts: any change to what we apply moves it), nothing can differ,
 * so the pass neither renders nor compares: it reports the objects unchanged, with their health.
 * Anything else (an object gone, added, edited, paused or terminating, a dry run, another key) takes the
 * full pass, which records the shortcut again once it finds everything converged.
 */
import { entryFor } from '../kube/apply-context.ts';
import { isPaused } from '../kube/pause.ts';
import type { KubeObject } from '../objects/kube-object.ts';
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
  for (const o of objects) {
    // A paused object takes the full pass, which reports it paused (and leaves it alone).
    if (o.metadata.deletionTimestamp || isPaused(o) || !verified(o, pass.key)) return undefined;
  }
  const result = resultOf(
    { entries: objects.map((o) => entryFor(o, 'unchanged')), dryRun: false },
    rollUp(objects.map(assessObject)),
  );
  result.converged = pass;
  return result;
}
