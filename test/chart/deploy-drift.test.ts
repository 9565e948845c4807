import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { deployDir, RENDER_COMMAND, renderDeploy } from '../../scripts/render-deploy.ts';
import { parseObjects } from './helm.ts';
import { validateObject } from './models.ts';

describe('deploy/ is the chart rendered with its default values', () => {
  const rendered = renderDeploy();

  it('holds exactly the rendered files', () => {
    expect(
      readdirSync(deployDir).sort(),
      `deploy/ has stray or missing files; run \`${RENDER_COMMAND}\``,
    ).toEqual([...rendered.keys()].sort());
  });

  it.each([...rendered.keys()])('%s matches a fresh render', (file) => {
    const onDisk = path.join(deployDir, file);
    const current = existsSync(onDisk) ? readFileSync(onDisk, 'utf8') : '(missing)';
    expect(
      current === rendered.get(file),
      `deploy/${file} drifted from the chart; run \`${RENDER_COMMAND}\``,
    ).toBe(true);
  });

  it('contains valid objects and no Secret value', () => {
    const objects = parseObjects(readFileSync(path.join(deployDir, 'mooring.yaml'), 'utf8'));
    expect(objects.map((o) => o.kind).sort()).toEqual([
      'ConfigMap',
      'Deployment',
      'Role',
      'Role',
      'RoleBinding',
      'RoleBinding',
      'Service',
      'ServiceAccount',
    ]);
    for (const object of objects) validateObject(object);
  });
});
