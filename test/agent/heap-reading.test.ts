import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { HeapWatch, REREAD_AFTER_MS, semiSpaceFlagBytes } from '../../src/agent/heap-reading.ts';

const MIB = 1024 * 1024;

describe('reading the heap', () => {
  it("takes the young generation's reserve from the semi-space flag, the last one winning", () => {
    expect(semiSpaceFlagBytes([], '--max-old-space-size-percentage=60 --max-semi-space-size=8')).toBe(
      8 * MIB,
    );
    expect(semiSpaceFlagBytes(['--max-semi-space-size=4'], '--max-semi-space-size=8')).toBe(4 * MIB);
    expect(semiSpaceFlagBytes([], '--max_semi_space_size=16')).toBe(16 * MIB);
    expect(semiSpaceFlagBytes(['--heapsnapshot-signal=SIGUSR2'], undefined)).toBeUndefined();
  });

  it("reads V8's own heap: some live bytes under a ceiling", () => {
    const watch = new HeapWatch();
    const { liveBytes, limitBytes } = watch.read();
    watch.close();
    expect(liveBytes).toBeGreaterThan(0);
    expect(limitBytes).toBeGreaterThan(liveBytes);
  });

  it('gives a reading younger than REREAD_AFTER_MS again instead of asking V8 once more', async () => {
    const watch = new HeapWatch();
    const first = watch.read();
    expect(watch.read()).toBe(first);
    await new Promise((resolve) => setTimeout(resolve, REREAD_AFTER_MS + 5));
    expect(watch.read()).not.toBe(first);
    watch.close();
  });

  it('keeps the live bytes of the full collections a watch saw, from its first read until it is closed', async () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const settle = () => new Promise((resolve) => setTimeout(resolve, 20));
    const watching = new HeapWatch();
    const idle = new HeapWatch();
    watching.read();
    gc();
    await settle();
    expect(watching.liveAfterFullGcBytes).toBeGreaterThan(0);
    // A watch never read saw nothing; a closed one sees no further collection.
    expect(idle.liveAfterFullGcBytes).toBeUndefined();
    watching.close();
    const closed = new HeapWatch();
    closed.read();
    closed.close();
    gc();
    await settle();
    expect(closed.liveAfterFullGcBytes).toBeUndefined();
  });
});
