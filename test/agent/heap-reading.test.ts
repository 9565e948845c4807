import { describe, expect, it } from 'vitest';
import { readHeap, semiSpaceFlagBytes } from '../../src/agent/heap-reading.ts';

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
    const { liveBytes, limitBytes } = readHeap();
    expect(liveBytes).toBeGreaterThan(0);
    expect(limitBytes).toBeGreaterThan(liveBytes);
  });
});
