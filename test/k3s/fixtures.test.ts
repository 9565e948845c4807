/**
 * The real-cluster suite cannot run without a container engine; its inputs are checked here, on
 * every machine, so the suite fails there on the agent, not on its own setup: the chart accepts
 * its values and runs the image read-only and non-root, and the deployments it creates render to
 * what its cases expect (an HPA and a Postgres StatefulSet; every app component serving the
 * port its probes check).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { repoRoot } from '../../scripts/render-deploy.ts';
import { render } from '../../src/cli/render.ts';
import { captureContext } from '../cli/helpers.ts';
import { lint, only, template } from '../chart/helm.ts';
import { deploymentBody, EVERY_GROUP, IMAGE, PLAIN, suiteValues } from './fixtures.ts';

const kindValues = path.join(repoRoot, '.github', 'ci', 'kind-values.yaml');

interface Rendered {
  kind: string;
  metadata: { name: string };
  spec?: {
    template?: {
      spec: { containers: Array<{ command?: string[]; ports?: Array<{ containerPort: number }> }> };
    };
  };
}

/** Renders a suite deployment with the suite's render settings, as `mooring render` does. */
async function renderBody(name: string, spec: Record<string, unknown>): Promise<Rendered[]> {
  const dir = mkdtempSync(path.join(tmpdir(), 'mooring-k3s-fixture-'));
  try {
    const record = {
      ...deploymentBody(name, spec, 'unused'),
      id: '11111111-2222-4333-8444-555555555555',
      tenant_id: '11111111-2222-4333-8444-666666666666',
      status: 'READY',
      latest_revision_id: '11111111-2222-4333-8444-777777777777',
      active_revision_id: '11111111-2222-4333-8444-777777777777',
      created_at: '2026-01-01T00:00:00Z',
      updated_at: '2026-01-01T00:00:00Z',
    };
    writeFileSync(path.join(dir, 'deployment.json'), JSON.stringify(record));
    writeFileSync(path.join(dir, 'settings.yaml'), stringify(suiteValues.rendering));
    const out = captureContext({}, undefined, dir);
    const args = ['--deployment', 'deployment.json', '--settings', 'settings.yaml', '-o', 'json'];
    expect(await render(args, out.ctx), out.stderr()).toBe(0);
    return (JSON.parse(out.stdout()) as { items: Rendered[] }).items;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('the real-cluster suite inputs', () => {
  it('the chart takes the suite values and runs the built image read-only, non-root', () => {
    const lintResult = lint([kindValues, suiteValues]);
    expect(lintResult.status, lintResult.stderr).toBe(0);
    // biome-ignore lint/suspicious/noExplicitAny: reading a rendered manifest
    const pod = (only(template([kindValues, suiteValues]), 'Deployment').spec as any).template.spec;
    expect(pod.containers[0].image).toBe(IMAGE);
    expect(pod.containers[0].imagePullPolicy).toBe('Never');
    expect(pod.containers[0].securityContext.readOnlyRootFilesystem).toBe(true);
    expect(pod.securityContext.runAsNonRoot ?? pod.containers[0].securityContext.runAsNonRoot).toBe(true);
  });

  it('the every-group deployment renders an HPA, a Postgres StatefulSet and serving components', async () => {
    const objects = await renderBody('groups', EVERY_GROUP);
    const kinds = objects.map((o) => `${o.kind}/${o.metadata.name}`);
    expect(kinds).toEqual(
      expect.arrayContaining([
        'HorizontalPodAutoscaler/groups',
        'StatefulSet/groups-postgres',
        'Deployment/groups',
      ]),
    );
    const apps = objects.filter((o) => o.kind === 'Deployment' && !o.metadata.name.endsWith('-redis'));
    expect(apps.length).toBeGreaterThanOrEqual(2);
    for (const app of apps) {
      const container = app.spec!.template!.spec.containers[0]!;
      expect(container.command, app.metadata.name).toEqual(['python3', '-m', 'http.server', '8000']);
    }
  });

  it('the plain deployment renders no HPA (its replicas are the agent’s to repair)', async () => {
    const kinds = (await renderBody('plain', PLAIN)).map((o) => o.kind);
    expect(kinds).toContain('Deployment');
    expect(kinds).not.toContain('HorizontalPodAutoscaler');
  });
});
