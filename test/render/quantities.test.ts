import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { parseQuantity } from '../../src/quantity.ts';
import { cpuQuantity, memoryQuantity, storageQuantity } from '../../src/render/quantities.ts';

// Expected strings are what a Kubernetes API server prints back for each input (resource.Quantity
// canonical form), so that a live object compares equal to the rendered one.
describe('cpuQuantity', () => {
  it.each([
    [0.5, '500m'],
    [1, '1'],
    [2, '2'],
    [2.25, '2250m'],
    [0.0001, '1m'],
    [0.007, '7m'],
    [0.1, '100m'],
    [1.001, '1001m'],
    [0.0015, '2m'],
    [1000, '1k'],
    [1500, '1500'],
    [64, '64'],
  ])('%s cores -> %s', (cores, want) => expect(cpuQuantity(cores)).toBe(want));
});

describe('memoryQuantity', () => {
  it.each([
    [512, '512Mi'],
    [1024, '1Gi'],
    [1536, '1536Mi'],
    [2048, '2Gi'],
    [1048576, '1Ti'],
    [0.5, '512Ki'],
    [1.5, '1536Ki'],
    [100, '100Mi'],
    // 1,000,000 bytes: no power of 1024 divides it, so decimal (sent as "1000000" it would come back "1M").
    [1_000_000 / 1_048_576, '1M'],
  ])('%s MiB -> %s', (mib, want) => expect(memoryQuantity(mib)).toBe(want));
});

describe('storageQuantity', () => {
  it.each([
    [10, '10Gi'],
    [1024, '1Ti'],
    [0.5, '512Mi'],
    [1.25, '1280Mi'],
  ])('%s GiB -> %s', (gib, want) => expect(storageQuantity(gib)).toBe(want));
});

describe('parseQuantity (user-written quantities, canonicalized)', () => {
  it.each([
    ['500m', '500m'],
    ['0.5', '500m'],
    [0.25, '250m'],
    ['1000m', '1'],
    ['1', '1'],
    ['1000', '1k'],
    ['1024Mi', '1Gi'],
    ['1536Mi', '1536Mi'],
    ['0.5Gi', '512Mi'],
    ['1.5Ki', '1536'],
    ['512Ki', '512Ki'],
    ['0.5Ki', '512'],
    ['1e3', '1e3'],
    ['1.5M', '1500k'],
    ['100u', '100u'],
    ['0.0000000001', '1n'],
    ['0', '0'],
    ['976.5625Ki', '1M'],
  ])('%s -> %s', (input, want) => expect(parseQuantity(input)?.canonical).toBe(want));

  it.each(['500m', '1', '1k', '1536', '1Gi', '1536Mi', '512Ki', '1M', '100u', '1e3', '1500k'])(
    '%s is a fixed point: what we send is what the server prints',
    (q) => expect(parseQuantity(q)?.canonical).toBe(q),
  );

  it.each(['', 'abc', '-1', '1.2.3', '5 Mi', '1Zi', Number.NaN, -3, '1e99'])(
    '%s is not a quantity',
    (input) => {
      expect(parseQuantity(input)).toBeUndefined();
    },
  );
});

describe('rendered quantities are fixed points (property)', () => {
  it('parsing what we render gives it back unchanged', () => {
    fc.assert(
      fc.property(fc.double({ min: 0.0001, max: 100_000, noNaN: true }), (n) => {
        for (const q of [cpuQuantity(n), memoryQuantity(n), storageQuantity(n)]) {
          expect(parseQuantity(q)?.canonical).toBe(q);
        }
      }),
      { numRuns: 1000, seed: 7 },
    );
  });
});
