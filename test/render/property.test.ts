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

type Obj = ReturnType<typeof renderDeployment>['objects'][number];
const DNS_1035 = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;

/** What must hold of every successful render, whatever the spec. */
function checkInvariants(objects: Obj[]): void {
  const find = (kind: string, name: string) =>
    objects.find((o) => o.kind === kind && o.metadata.name === name);
  const ids = new Set<string>();
  for (const o of objects) {
    const id = `${o.kind}/${o.metadata.name}`;
    expect(ids.has(id), `${id} rendered twice`).toBe(false);
    ids.add(id);
    expect(o.metadata.labels['app.kubernetes.io/managed-by']).toBe('mooring');
    // The revision is on the app's Deployments and their pods alone (Redis may be a Deployment
    // too): a new revision that changes only the image then rewrites nothing else.
    const revision = o.metadata.annotations?.['mooring.dev/revision-id'];
    const component = o.metadata.labels['app.kubernetes.io/component'] ?? '';
    if (o.kind === 'Deployment' && component !== 'redis') {
      const template = (o.spec as { template: { metadata: { annotations?: Record<string, string> } } })
        .template;
      expect(revision, `${id} carries its revision`).toBeTypeOf('string');
      expect(template.metadata.annotations?.['mooring.dev/revision-id']).toBe(revision);
    } else {
      expect(revision, `${id} carries no revision`).toBeUndefined();
    }
    if (o.kind === 'Service') {
      expect(o.metadata.name.length).toBeLessThanOrEqual(63);
      expect(o.metadata.name).toMatch(DNS_1035);
    }
    if (o.kind === 'HorizontalPodAutoscaler') {
      const spec = o.spec as { scaleTargetRef: { name: string }; minReplicas: number; maxReplicas: number };
      const target = find('Deployment', spec.scaleTargetRef.name);
      expect(target, `${id} targets a rendered Deployment`).toBeDefined();
      expect('replicas' in (target!.spec as object), `${id}: its Deployment leaves replicas to it`).toBe(
        false,
      );
      expect(spec.minReplicas).toBeGreaterThanOrEqual(1);
      expect(spec.maxReplicas).toBeGreaterThan(spec.minReplicas - 1);
    }
    if (o.kind === 'Deployment' && !('replicas' in (o.spec as object))) {
      expect(
        find('HorizontalPodAutoscaler', o.metadata.name),
        `${id} without replicas has an HPA`,
      ).toBeDefined();
    }
  }
}

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
        checkInvariants(result.objects);
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
