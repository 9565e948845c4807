/**
 * The chart job of ci.yml installs the chart on kind against the reference control plane of
 * .github/ci/control-plane.yaml. Nothing here runs a cluster; it checks that the pieces fit, so
 * the job fails on the agent's behaviour, not on a typo: the values pass the chart's lint, the
 * agent is pointed at the control plane's Service with a listener the seed creates, and both run
 * the image the job builds.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import { repoRoot } from '../../scripts/render-deploy.ts';
import { Seed } from '../../src/control-plane/server/seed.ts';
import { type KubeObject, lint, only, template } from '../chart/helm.ts';
import { validateObject } from '../chart/models.ts';

const kindValues = path.join(repoRoot, '.github', 'ci', 'kind-values.yaml');
const values = parse(readFileSync(kindValues, 'utf8'));
const controlPlane = parseAllDocuments(
  readFileSync(path.join(repoRoot, '.github', 'ci', 'control-plane.yaml'), 'utf8'),
).map((d) => d.toJS() as KubeObject);
const ci = parse(readFileSync(path.join(repoRoot, '.github', 'workflows', 'ci.yml'), 'utf8')) as {
  jobs: { chart: { steps: Array<{ name?: string; uses?: string; with?: Record<string, string> }> } };
};

describe('the chart job on kind', () => {
  it('the kind values pass helm lint --strict', () => {
    const res = lint([kindValues]);
    expect(res.stderr).not.toMatch(/error/i);
    expect(res.status).toBe(0);
  });

  it('the control plane objects are valid Kubernetes objects in the release namespace', () => {
    expect(controlPlane.map((o) => o.kind)).toEqual(['Secret', 'ConfigMap', 'Deployment', 'Service']);
    for (const object of controlPlane) {
      validateObject(object);
      expect(object.metadata.namespace).toBe('mooring');
    }
  });

  it('the agent reaches the control plane Service with the key Secret and a seeded listener', () => {
    const service = only(controlPlane, 'Service') as unknown as {
      metadata: { name: string; namespace: string };
      spec: { ports: Array<{ port: number }> };
    };
    expect(values.controlPlane.url).toBe(
      `http://${service.metadata.name}.${service.metadata.namespace}.svc:${service.spec.ports[0]!.port}`,
    );
    expect(only(controlPlane, 'Secret').metadata.name).toBe(values.existingSecret);
    const seedText = (only(controlPlane, 'ConfigMap') as unknown as { data: Record<string, string> }).data[
      'seed.yaml'
    ]!;
    const seed = Seed.parse(parse(seedText));
    const listener = seed.listeners.find((l) => l.id === values.listenerId);
    expect(listener?.compute_config).toMatchObject({ k8s_namespaces: values.namespaces });
    expect(seed.deployments.map((d) => d.source_config?.listener_id)).toContain(values.listenerId);
  });

  it('the agent and the control plane run the image the job builds and loads', () => {
    const built = ci.jobs.chart.steps.find((s) => s.name === 'Build the image the chart runs')?.with?.tags;
    // biome-ignore lint/suspicious/noExplicitAny: reading a rendered manifest
    const agentPod = (only(template([kindValues]), 'Deployment').spec as any).template.spec;
    // biome-ignore lint/suspicious/noExplicitAny: reading a manifest
    const cpPod = (only(controlPlane, 'Deployment').spec as any).template.spec;
    expect(built).toBe('ghcr.io/mooring-dev/mooring:ci');
    expect(agentPod.containers[0].image).toBe(built);
    expect(agentPod.containers[0].imagePullPolicy).toBe('Never');
    expect(cpPod.containers[0].image).toBe(built);
    expect(cpPod.containers[0].args[0]).toBe('control-plane');
  });
});
