import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { parseAgentConfig } from '../../src/config.ts';
import { ciValueSets, type KubeObject, mountedFiles, only, RELEASE, template } from './helm.ts';

interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: { fieldRef?: { fieldPath: string } };
}

const POD = {
  'metadata.name': 'mooring-6d4cf56db6-x7k2p',
  'metadata.namespace': RELEASE.namespace,
  'spec.serviceAccountName': 'mooring',
  'status.podIP': '10.42.0.17',
};

/** The environment the kubelet would give the agent container (downward API resolved). */
function containerEnv(objects: KubeObject[]): Record<string, string> {
  // biome-ignore lint/suspicious/noExplicitAny: reading a rendered manifest
  const env = (only(objects, 'Deployment').spec as any).template.spec.containers[0].env as EnvVar[];
  const out: Record<string, string> = {};
  for (const e of env) {
    const field = e.valueFrom?.fieldRef?.fieldPath as keyof typeof POD | undefined;
    out[e.name] = field ? POD[field] : (e.value ?? '');
  }
  return out;
}

describe.each([...ciValueSets().entries()])(
  'the agent accepts the environment the chart gives it (%s values)',
  (_n, file) => {
    const objects = template([file]);
    const env = containerEnv(objects);

    it('parses with no problem, reading the key and the render settings from the mounted files', () => {
      const read: string[] = [];
      const settings = mountedFiles(objects);
      const result = parseAgentConfig({
        argv: [],
        env,
        readFile: (p: string) => {
          read.push(p);
          return settings.get(p) ?? 'key-from-the-mounted-secret\n';
        },
      });
      expect(result).toMatchObject({ ok: true });
      expect(read).toEqual([env.MOORING_API_KEY_FILE, env.MOORING_SETTINGS]);
      expect(settings.has(env.MOORING_SETTINGS!)).toBe(true);
      if (!result.ok || result.help) return;
      expect(result.config.apiKey).toBe('key-from-the-mounted-secret');
      expect(result.config.namespaces.join(',')).toBe(env.MOORING_NAMESPACES);
      expect(result.config.opsPort).toBe(8080);
      // The pod's IP, where the kubelet's probes and Prometheus come; never every interface.
      expect(result.config.opsHost).toBe(POD['status.podIP']);
      expect(result.config.identity).toBe(POD['metadata.name']);
      expect(result.config.leaseNamespace).toBe(RELEASE.namespace);
      expect(result.config.kubeconfig).toBeUndefined();
    });

    it("tells the agent its own ServiceAccount and namespace, and the values' references", () => {
      const files = mountedFiles(objects);
      const result = parseAgentConfig({ argv: [], env, readFile: (p) => files.get(p) ?? 'key' });
      if (!result.ok || result.help) throw new Error(`does not parse: ${JSON.stringify(result)}`);
      const deployment = only(objects, 'Deployment') as unknown as {
        spec: { template: { spec: { serviceAccountName: string } } };
      };
      expect(result.config.references.serviceAccount).toBe(deployment.spec.template.spec.serviceAccountName);
      expect(result.config.references.serviceAccount).toBe(POD['spec.serviceAccountName']);
      expect(result.config.references.podNamespace).toBe(RELEASE.namespace);
      const values = parse(readFileSync(file, 'utf8')) as { references?: Record<string, unknown> };
      const refs = values.references ?? {};
      expect(result.config.references.namespaceTenants).toEqual(refs.namespaceTenants ?? {});
      expect(result.config.references.deploymentServiceAccounts).toEqual(
        (refs.serviceAccounts as string[] | undefined)?.length ? refs.serviceAccounts : undefined,
      );
      expect(result.config.references.allowServiceAccountTokens).toBe(
        refs.allowServiceAccountTokens ?? false,
      );
    });
  },
);
