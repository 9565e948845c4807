import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { renderDeployment } from '../../src/render/index.ts';
import { toYamlStream } from '../../src/render/serialize.ts';
import { CANARY, GOLDEN_CASES } from './fixtures.ts';
import { validateObject } from './models.ts';

// UPDATE_GOLDEN=1 npx vitest run test/render  rewrites the files; review the diff before committing.
const UPDATE = process.env.UPDATE_GOLDEN === '1';
const GOLDEN_DIR = join(import.meta.dirname, 'golden');

describe('golden renders', () => {
  for (const [name, input] of Object.entries(GOLDEN_CASES)) {
    it(`${name}: whole output equals golden/${name}.yaml`, () => {
      const yaml = toYamlStream(renderDeployment(input()).objects);
      const file = join(GOLDEN_DIR, `${name}.yaml`);
      if (UPDATE) writeFileSync(file, yaml);
      expect(yaml).toBe(readFileSync(file, 'utf8'));
    });

    it(`${name}: every object validates against the official schema`, () => {
      const { objects } = renderDeployment(input());
      expect(objects.length).toBeGreaterThan(0);
      for (const o of objects) validateObject(o);
    });

    it(`${name}: byte-identical when rendered twice`, () => {
      const a = toYamlStream(renderDeployment(input()).objects);
      const b = toYamlStream(renderDeployment(input()).objects);
      expect(b).toBe(a);
    });

    it(`${name}: no secret value outside the b-env Secret`, () => {
      const { objects, baseName } = renderDeployment(input());
      for (const o of objects) {
        if (o.kind === 'Secret' && o.metadata.name === `${baseName}-env`) continue;
        expect(JSON.stringify(o), `${o.kind}/${o.metadata.name}`).not.toContain(CANARY);
      }
    });
  }

  it('the YAML stream has no anchors or aliases (regression: a shared selector became &a1/*a1)', () => {
    for (const input of Object.values(GOLDEN_CASES)) {
      expect(toYamlStream(renderDeployment(input()).objects)).not.toMatch(/[&*]a\d+\b/);
    }
  });

  it('no two returned objects share a node: changing one leaves the others and the next render alone', () => {
    const input = GOLDEN_CASES['full-spec']!;
    const first = renderDeployment(input());
    const before = toYamlStream(first.objects);
    for (const o of first.objects) {
      o.metadata.labels.team = 'changed';
      const spec = o.spec as {
        template?: { spec: { securityContext: { seccompProfile: { type: string } } } };
      };
      if (spec?.template) spec.template.spec.securityContext.seccompProfile.type = 'Unconfined';
    }
    expect(toYamlStream(renderDeployment(input()).objects)).toBe(before);
    const second = renderDeployment(input());
    second.objects[0]!.metadata.labels.x = 'y';
    expect(second.objects.filter((o) => o.metadata.labels.x === 'y')).toHaveLength(1);
  });

  it('schema validation can fail: a malformed Deployment is refused', () => {
    const { objects } = renderDeployment(GOLDEN_CASES['minimal-external-docker']!());
    const deployment = structuredClone(objects.find((o) => o.kind === 'Deployment')!);
    (deployment.spec as { replicas: unknown }).replicas = 'three';
    expect(() => validateObject(deployment)).toThrow(/Deployment\/apps\//);
  });

  it('the canary does reach the b-env Secret (so the leak check can fail)', () => {
    const { objects, baseName } = renderDeployment(GOLDEN_CASES['full-spec']!());
    const env = objects.find((o) => o.kind === 'Secret' && o.metadata.name === `${baseName}-env`);
    expect(JSON.stringify(env)).toContain(CANARY);
  });
});
