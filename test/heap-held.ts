/**
 * The heap a value holds, measured around full collections: what a test of a memory structure
 * asserts on (a string shared or not is invisible to JavaScript itself).
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

let gc: (() => void) | undefined;

/** Heap bytes still used once `make`'s result is made, with it alive; collected before and after. */
export async function heapHeldBy(make: () => unknown): Promise<number> {
  if (!gc) {
    setFlagsFromString('--expose-gc');
    gc = runInNewContext('gc') as () => void;
  }
  gc();
  gc();
  const before = process.memoryUsage().heapUsed;
  const kept = await make();
  gc();
  gc();
  const after = process.memoryUsage().heapUsed;
  // Keeps the value alive until the second figure is taken.
  if (kept === heapHeldBy) throw new Error('unreachable');
  return after - before;
}
