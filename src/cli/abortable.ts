/**
 * A reconcile's resource calls made abortable: the reconcile itself takes no signal, so its calls
 * are guarded instead and a timed-out, deposed or shut-down reconcile stops at its next step.
 */
import { MooringError } from '../errors.ts';
import type { Resources } from '../reconcile/reconcile.ts';

/** Checks `signal` before each resource call: an aborted reconcile writes nothing more. */
export function abortable(resources: Resources, signal: AbortSignal): Resources {
  const guard = () => {
    if (!signal.aborted) return;
    const reason: unknown = signal.reason;
    throw reason instanceof MooringError
      ? reason
      : new MooringError('MOORING_E_INTERNAL', 'reconcile aborted');
  };
  return {
    applyAll: async (objects, opts) => {
      guard();
      return resources.applyAll(objects, opts);
    },
    listOwned: async (opts) => {
      guard();
      return resources.listOwned(opts);
    },
    deleteAll: async (objects, opts) => {
      guard();
      return resources.deleteAll(objects, opts);
    },
  };
}
