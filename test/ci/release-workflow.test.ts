/**
 * What the release workflow promises about the artifacts it publishes: the image carries an SBOM
 * and provenance, and the image and the chart are signed keyless, by digest, with cosign.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { repoRoot } from '../../scripts/render-deploy.ts';

interface Step {
  id?: string;
  uses?: string;
  run?: string;
  with?: Record<string, unknown>;
  env?: Record<string, string>;
}
interface Job {
  permissions?: Record<string, string>;
  outputs?: Record<string, string>;
  steps: Step[];
}

const workflow = parse(readFileSync(path.join(repoRoot, '.github', 'workflows', 'release.yml'), 'utf8')) as {
  permissions: Record<string, string>;
  jobs: Record<string, Job>;
};

/** Index of the first step of `job` matching `test`; -1 when none. */
function stepIndex(job: Job, test: (s: Step) => boolean): number {
  return job.steps.findIndex(test);
}

describe('the release workflow', () => {
  const image = workflow.jobs.image!;
  const chart = workflow.jobs.chart!;

  it('grants an OIDC token only to the jobs that sign, and nothing to write by default', () => {
    expect(workflow.permissions).toEqual({ contents: 'read' });
    for (const [name, job] of Object.entries(workflow.jobs)) {
      const signs = job.steps.some((s) => s.run?.includes('cosign sign'));
      expect(job.permissions?.['id-token'], name).toBe(signs ? 'write' : undefined);
    }
  });

  it('builds the image with an SBOM and full provenance attached', () => {
    const build = image.steps.find((s) => s.uses?.startsWith('docker/build-push-action@'));
    expect(build?.with).toMatchObject({ sbom: true, provenance: 'mode=max', push: true });
  });

  it('signs the pushed image by its digest, after the push, keyless', () => {
    const build = stepIndex(image, (s) => s.uses?.startsWith('docker/build-push-action@') ?? false);
    const install = stepIndex(image, (s) => s.uses?.startsWith('sigstore/cosign-installer@') ?? false);
    const sign = stepIndex(image, (s) => s.run?.includes('cosign sign') ?? false);
    expect(build).toBeGreaterThanOrEqual(0);
    expect(install).toBeGreaterThan(build);
    expect(sign).toBeGreaterThan(install);
    const step = image.steps[sign]!;
    // --yes: no prompt in CI; no --key: the keyless flow through the workflow's OIDC identity.
    expect(step.run).toMatch(/cosign sign --yes "\$\{IMAGE\}@\$\{DIGEST\}"/);
    expect(step.run).not.toContain('--key');
    expect(step.env?.DIGEST).toBe(`\${{ steps.${image.steps[build]!.id}.outputs.digest }}`);
  });

  it('signs the pushed chart by its digest, keyless', () => {
    const push = stepIndex(chart, (s) => s.run?.includes('helm push') ?? false);
    const sign = stepIndex(chart, (s) => s.run?.includes('cosign sign') ?? false);
    expect(push).toBeGreaterThanOrEqual(0);
    expect(sign).toBeGreaterThan(push);
    expect(chart.steps[push]!.run).toContain('CHART_DIGEST=');
    expect(chart.steps[sign]!.run).toMatch(
      /cosign sign --yes "ghcr\.io\/\$\{OWNER\}\/charts\/mooring@\$\{CHART_DIGEST\}"/,
    );
    expect(chart.steps[sign]!.run).not.toContain('--key');
  });
});
