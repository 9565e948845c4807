import { describe, expect, it } from 'vitest';
import { cpuQuantity, memoryQuantity, parseQuantity, storageQuantity } from '../../src/render/quantities.ts';

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
  ])('%s -> %s', (input, want) => expect(parseQuantity(input)?.canonical).toBe(want));

  it.each(['', 'abc', '-1', '1.2.3', '5 Mi', '1Zi', Number.NaN, -3, '1e99'])(
    '%s is not a quantity',
    (input) => {
      expect(parseQuantity(input)).toBeUndefined();
    },
  );
});
