import { describe, expect, it } from 'vitest';
import { renderSettingsOf } from '../../src/cli/agent-settings.ts';
import { parseAgentConfig } from '../../src/config.ts';
import { mergeRenderSettings, parseSettingsText } from '../../src/render/index.ts';
import { ciValueSets, type KubeObject, mountedFiles, only, template } from './helm.ts';

const REQUIRED = {
  controlPlane: { url: 'https://cp.example' },
  existingSecret: 'mooring-api-key',
  listenerId: '5b0e8f7a-3c2d-4e1f-8a9b-0c1d2e3f4a5b',
  namespaces: ['apps'],
};

const RENDERING = {
  redisImage: 'mirror.example/redis:7.4',
  clusterDomain: 'corp.example',
  commands: { queue: ['python', '-m', 'worker'] },
};

/** The render settings the agent of this chart render would use. */
function agentSettings(objects: KubeObject[]) {
  // biome-ignore lint/suspicious/noExplicitAny: reading a rendered manifest
  const env = (only(objects, 'Deployment').spec as any).template.spec.containers[0].env as {
    name: string;
    value?: string;
  }[];
  const vars = Object.fromEntries(env.filter((e) => e.value !== undefined).map((e) => [e.name, e.value!]));
  const files = mountedFiles(objects);
  const r = parseAgentConfig({ argv: [], env: vars, readFile: (p) => files.get(p) ?? 'key' });
  if (!r.ok || r.help) throw new Error(`does not parse: ${JSON.stringify(r)}`);
  return renderSettingsOf(r.config);
}

function checksum(objects: KubeObject[]): string {
  // biome-ignore lint/suspicious/noExplicitAny: reading a rendered manifest
  return (only(objects, 'Deployment').spec as any).template.metadata.annotations['checksum/rendering'];
}

describe('the chart value rendering: the settings file of mooring run', () => {
  it('becomes the file the agent reads, giving what mooring render --settings gives', () => {
    const objects = template([REQUIRED, { rendering: RENDERING }]);
    const text = (
      only(objects, 'ConfigMap', 'mooring-rendering') as unknown as { data: Record<string, string> }
    ).data['settings.yaml']!;
    const parsed = parseSettingsText(text);
    if (!parsed.ok) throw new Error(parsed.problems.join('; '));
    const s = agentSettings(objects);
    // The chart's own policy values always reach the agent as variables; they equal the defaults here.
    expect(s).toEqual(mergeRenderSettings(REQUIRED.listenerId, parsed.settings));
    expect(s.redisImage).toBe('mirror.example/redis:7.4');
    expect(s.commands).toEqual({ queue: ['python', '-m', 'worker'] });
  });

  it('by default gives the agent the defaults mooring render has', () => {
    expect(agentSettings(template([REQUIRED]))).toEqual(mergeRenderSettings(REQUIRED.listenerId, {}));
  });

  it('the policy values no flag carries reach the agent through the file: CSI drivers, pod certificates, pod metadata keys', () => {
    const podMetadata = { annotations: { allow: ['sidecar.istio.io/inject'], deny: ['*istio.io/*'] } };
    const s = agentSettings(
      template([
        REQUIRED,
        { rendering: RENDERING },
        {
          policy: {
            allowedCsiDrivers: ['secrets-store.csi.k8s.io'],
            allowPodCertificates: true,
            podMetadata,
          },
        },
      ]),
    );
    expect(s.policy.allowedCsiDrivers).toEqual(['secrets-store.csi.k8s.io']);
    expect(s.policy.allowPodCertificates).toBe(true);
    expect(s.policy.podMetadata.annotations).toEqual(podMetadata.annotations);
    expect(s.redisImage).toBe('mirror.example/redis:7.4');
  });

  it('components values still override the file', () => {
    const s = agentSettings(
      template([REQUIRED, { rendering: RENDERING, components: { redisImage: 'r:1' } }]),
    );
    expect(s.redisImage).toBe('r:1');
    expect(s.clusterDomain).toBe('corp.example');
  });

  it('a change of rendering changes the pod template, so the agent rolls', () => {
    const a = checksum(template([REQUIRED, { rendering: RENDERING }]));
    const b = checksum(template([REQUIRED, { rendering: { ...RENDERING, redisImage: 'r:2' } }]));
    expect(a).toMatch(/^[0-9a-f]{64}$/);
    expect(b).not.toBe(a);
    expect(checksum(template([REQUIRED, { rendering: RENDERING }]))).toBe(a);
  });
});

describe('ci/rendering-values.yaml', () => {
  it('gives the agent a settings file that parses, with its placement and probes', () => {
    const file = ciValueSets().get('rendering')!;
    const s = agentSettings(template([file]));
    expect(s.placement?.datastores?.priorityClassName).toBe('data-critical');
    expect(s.probes).toMatchObject({ enabled: true, path: '/healthz', startup: { failureThreshold: 120 } });
    expect(s.service?.type).toBe('LoadBalancer');
  });
});
