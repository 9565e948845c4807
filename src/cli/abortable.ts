/**
 * A reconcile's resource calls made abortable: the reconcile itself takes no signal, so each call
 * is given it here. A call made after the abort throws at once; one under way has its request in
 * flight cut and sends no other (ObjectClient.withSignal), so a timed-out, deposed or shut-down
 * reconcile stops mid-batch.
 */
import { cancelledBy } from '../errors.ts';
import type { Resources } from '../reconcile/reconcile.ts';

/** Gives `signal` to each resource call: an aborted reconcile writes nothing more. */
export function abortable(resources: Resources, signal: AbortSignal): Resources {
  const guard = () => {
    if (signal.aborted) throw cancelledBy(signal);
  };
  return {
    findOwned: async (obj, listenerId) => {
      guard();
      return resources.findOwned(obj, listenerId, { signal });
    },
    applyAll: async (objects, opts) => {
      guard();
      return resources.applyAll(objects, { ...opts, signal });
    },
    listOwned: async (opts) => {
      guard();
      return resources.listOwned({ ...opts, signal });
    },
    deleteAll: async (objects, opts) => {
      guard();
      return resources.deleteAll(objects, { ...opts, signal });
    },
  };
}
