/**
 * The versions docs/install.md says CI runs are the ones it runs: the k3s suite's image, the kind
 * node image of the CI install, and the helm the project pins. A support claim beyond them is
 * stated as untested there, and the chart's kubeVersion is the floor it names.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { toolPath } from '../../scripts/install-tools.ts';
import { chartDir, repoRoot } from '../../scripts/render-deploy.ts';

const read = (...parts: string[]) => readFileSync(path.join(repoRoot, ...parts), 'utf8');
const install = read('docs', 'install.md').replaceAll(/\s+/g, ' ');

/** `major.minor` of the first `v<major>.<minor>` in `text` after `prefix`. */
function minorAfter(text: string, prefix: string): string {
  const escaped = prefix.replaceAll(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  const m = new RegExp(`${escaped}v?(\\d+\\.\\d+)`).exec(text);
  if (!m) throw new Error(`no version after ${prefix}`);
  return m[1]!;
}

describe('the support range docs/install.md states', () => {
  it('names the Kubernetes of the k3s suite', () => {
    const k3s = minorAfter(read('test', 'k3s', 'k3s.test.ts'), "'rancher/k3s:");
    expect(install).toContain(`Kubernetes ${k3s} (k3s`);
  });

  it('names the Kubernetes of the CI install on kind', () => {
    const ci = parse(read('.github', 'workflows', 'ci.yml')) as {
      jobs: Record<string, { steps: Array<{ uses?: string; with?: Record<string, string> }> }>;
    };
    const kind = Object.values(ci.jobs)
      .flatMap((j) => j.steps)
      .find((s) => s.uses?.startsWith('helm/kind-action@'));
    const image = kind?.with?.node_image ?? '';
    expect(image).toMatch(/^kindest\/node:v\d+\.\d+\.\d+/);
    expect(install).toContain(`and ${minorAfter(image, 'kindest/node:')} (kind`);
  });

  it('names the helm the project pins, and calls Helm 3 untested', () => {
    const res = spawnSync(toolPath('helm'), ['version', '--short'], { encoding: 'utf8' });
    expect(res.status).toBe(0);
    expect(install).toContain(`with Helm ${minorAfter(res.stdout, '')}.`);
    expect(install).toContain('Helm 3 are not tested');
  });

  it('gives the chart’s kubeVersion as the declared floor, not as a tested version', () => {
    const chart = parse(readFileSync(path.join(chartDir, 'Chart.yaml'), 'utf8')) as { kubeVersion: string };
    const floor = minorAfter(chart.kubeVersion, '>=');
    expect(install).toContain(`The chart declares \`kubeVersion: >=${floor}\``);
    // "before" the oldest Kubernetes CI runs: the k3s suite's or the kind install's.
    const k3s = minorAfter(read('test', 'k3s', 'k3s.test.ts'), "'rancher/k3s:");
    const kind = minorAfter(read('.github', 'workflows', 'ci.yml'), 'kindest/node:');
    const oldest = [k3s, kind].sort((a, b) => Number(a.split('.')[1]) - Number(b.split('.')[1]))[0];
    expect(install).toContain(`Kubernetes before ${oldest} and Helm 3 are not tested`);
  });
});

describe('the Node versions the README states', () => {
  it('are the CI matrix, whose oldest is package.json’s engines floor', () => {
    const ci = parse(read('.github', 'workflows', 'ci.yml')) as {
      jobs: Record<string, { strategy?: { matrix?: { node?: string[] } } }>;
    };
    const nodes = Object.values(ci.jobs).flatMap((j) => j.strategy?.matrix?.node ?? []);
    expect(nodes.length).toBeGreaterThan(0);
    const readme = read('README.md').replaceAll(/\s+/g, ' ');
    expect(readme).toContain(`the suite on Node ${nodes.join(' and ')},`);
    const engines = (JSON.parse(read('package.json')) as { engines: { node: string } }).engines.node;
    expect(engines).toBe(`>=${nodes[0]}`);
    expect(readme).toContain(`Node ${nodes[0]} or newer runs mooring`);
  });
});
