import { describe, expect, it } from 'vitest';
import { toYamlStream, YamlWriter } from '../../src/render/serialize.ts';
import type { RenderedObject } from '../../src/render/types.ts';

const configMap = (name: string, data: Record<string, string>): RenderedObject =>
  ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data }) as unknown as RenderedObject;

describe('YamlWriter (the scalar texts it keeps)', () => {
  it('writes each stream as a fresh writer would, while and after its kept texts fill up and are dropped', () => {
    const writer = new YamlWriter();
    // More distinct strings than a writer keeps, some needing quotes: the texts are dropped on the way.
    for (let batch = 0; batch < 6; batch++) {
      const objects = Array.from({ length: 50 }, (_, i) =>
        configMap(
          `cm-${batch}-${i}`,
          Object.fromEntries(Array.from({ length: 40 }, (_, k) => [`k${k}`, k % 3 ? `v ${i}:${k}` : 'yes'])),
        ),
      );
      expect(writer.stream(objects)).toBe(toYamlStream(objects));
    }
    const again = [configMap('cm-0-0', { k0: 'yes', k1: 'on: off' })];
    expect(writer.stream(again)).toBe(toYamlStream(again));
    expect(writer.stream(again)).toContain('k0: "yes"');
  });
});
