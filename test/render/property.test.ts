import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RenderError, renderDeployment } from '../../src/render/index.ts';
import { toYamlStream } from '../../src/render/serialize.ts';
import { renderInput } from './arbitraries.ts';
import { CANARY } from './fixtures.ts';
import { validateObject } from './models.ts';

const RENDER_CODES = new Set([
  'MOORING_E_RENDER_INVALID',
  'MOORING_E_RENDER_POLICY',
  'MOORING_E_RENDER_NO_IMAGE',
  'MOORING_E_RENDER_NAME_COLLISION',
]);

describe('generated ResourceSpecs (fast-check)', () => {
  it('each input renders schema-valid objects or fails with a coded RenderError naming a field', () => {
    let rendered = 0;
    let refused = 0;
    const codes = new Set<string>();
    fc.assert(
      fc.property(renderInput, (input) => {
        let result: ReturnType<typeof renderDeployment>;
        try {
          result = renderDeployment(input);
        } catch (err) {
          if (!(err instanceof RenderError)) throw err;
          expect(RENDER_CODES.has(err.code)).toBe(true);
          expect(err.field.length).toBeGreaterThan(0);
          expect(err.message).not.toContain(CANARY);
          refused += 1;
          codes.add(err.code);
          return;
        }
        rendered += 1;
        for (const o of result.objects) {
          validateObject(o);
          // Secret values go to the b-env Secret and nowhere else.
          if (!(o.kind === 'Secret' && o.metadata.name === `${result.baseName}-env`)) {
            expect(JSON.stringify(o)).not.toContain(CANARY);
          }
          const spec = o.spec as {
            selector?: { matchLabels?: object };
            template?: { metadata: { labels: object } };
          };
          if (spec?.template)
            expect(spec.template.metadata.labels).toMatchObject(spec.selector?.matchLabels ?? {});
        }
        // Same input, byte-identical output.
        expect(toYamlStream(renderDeployment(input).objects)).toBe(toYamlStream(result.objects));
      }),
      { numRuns: 2000, seed: 20261122 },
    );
    // Both paths must be exercised, or the property proves little.
    expect(rendered).toBeGreaterThan(600);
    expect(refused).toBeGreaterThan(600);
    expect([...codes].sort()).toEqual(['MOORING_E_RENDER_INVALID', 'MOORING_E_RENDER_POLICY']);
    // About 4 s on an idle 2-core machine; the limit only guards against a loaded one.
  }, 120_000);
});
