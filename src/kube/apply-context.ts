/** What every apply step shares: the client, the field manager, dry-run, and per-call options. */
import type { Logger } from 'pino';
import type { ChangeSetEntry } from '../objects/change-set.ts';
import type { Census } from './census.ts';
import type { RandomBytes } from './create-only.ts';
import type { ObjectClient } from './object-client.ts';
import { objectId } from '../objects/object-id.ts';
import type { KubeObject } from '../objects/kube-object.ts';
import type { ApplyMemo } from './memo.ts';

export interface ApplyContext {
  client: ObjectClient;
  fieldManager: string;
  dryRun: boolean;
  logger: Logger;
  random: RandomBytes;
  /**
   * The memo (observed-state.ts, rule 4): objects found converged, just applied, or (create-only)
   * found present: id -> key and version, where the key is the input's (`ApplyOptions.inputKey`)
   * or else the desired hash, and the version is `objectVersion`. With an input key, the resync
   * skips the comparison, and a deployment whose every object is still verified is not even
   * rendered (src/reconcile/converged.ts); a difference an apply does not change (a mutating
   * webhook) costs one write, not one per cycle. Key and version are kept apart, not joined in one
   * string: a deployment's objects share its key.
   */
  verified?: ApplyMemo;
}

/** What `ApplyContext.verified` holds per object. */
export interface Verified {
  key: string;
  version: string;
}

export interface ApplyOptions {
  /**
   * Live objects by id from a complete listing (listOwned): an object absent from it is applied
   * (or created) without a read first. Without it, each object is read once before applying.
   */
  live?: ReadonlyMap<string, KubeObject>;
  /**
   * With `live`: which names are taken in the namespace, whoever made them (census.ts). An object
   * neither listed nor in the census is created with a create-only write, without a read first.
   */
  census?: Census;
  /** Allow delete + recreate of a StatefulSet on an immutable change (pods orphaned, PVCs kept). */
  recreateStatefulSets?: boolean;
  /** Overrides the manager's dry-run setting for this call. */
  dryRun?: boolean;
  /**
   * Identifies what the objects were rendered from (the poller's desired-state hash): equal keys
   * mean equal objects. With it, an object verified converged at the same version is not
   * compared again.
   */
  inputKey?: string;
  /** Filled with each object as it stands after the call (apply response or the listed object), for health. */
  observed?: Map<string, KubeObject>;
  /**
   * The reconcile's signal: every request of the batch carries it, so an abort cuts the one in
   * flight and sends no other; the batch then throws `cancelledBy(signal)`.
   */
  signal?: AbortSignal;
}

/** `ctx` with its client bound to `signal` (ObjectClient.withSignal); `ctx` itself without one. */
export function bound<C extends { client: ObjectClient }>(ctx: C, signal: AbortSignal | undefined): C {
  return signal === undefined ? ctx : { ...ctx, client: ctx.client.withSignal(signal) };
}

/** A fresh change-set entry for an object. */
export function entryFor(obj: KubeObject, action: ChangeSetEntry['action']): ChangeSetEntry {
  const e: ChangeSetEntry = {
    id: objectId(obj),
    apiVersion: obj.apiVersion,
    kind: obj.kind,
    name: obj.metadata.name ?? '',
    action,
  };
  if (obj.metadata.namespace) e.namespace = obj.metadata.namespace;
  return e;
}
