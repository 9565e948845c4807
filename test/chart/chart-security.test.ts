import { describe, expect, it } from 'vitest';
import { ciValueSets, type KubeObject, only, template } from './helm.ts';

// biome-ignore lint/suspicious/noExplicitAny: reading rendered manifests
type Any = any;

function pod(objects: KubeObject[]): Any {
  return (only(objects, 'Deployment').spec as Any).template.spec;
}

describe.each([...ciValueSets().entries()])('the agent pod is hardened (%s values)', (_name, file) => {
  const objects = template([file]);
  const spec = pod(objects);
  const container = spec.containers[0];

  it('runs as a non-root user with a RuntimeDefault seccomp profile', () => {
    expect(spec.securityContext).toMatchObject({
      runAsNonRoot: true,
      seccompProfile: { type: 'RuntimeDefault' },
    });
    expect(container.securityContext).toMatchObject({ runAsNonRoot: true });
    // The image's uid, except where the platform assigns one (OpenShift's restricted SCC).
    const uid = _name === 'openshift' ? undefined : 65532;
    expect(spec.securityContext.runAsUser).toBe(uid);
    expect(container.securityContext.runAsUser).toBe(uid);
  });

  it('has a read-only root filesystem, no privilege escalation and drops ALL capabilities', () => {
    expect(container.securityContext).toMatchObject({
      readOnlyRootFilesystem: true,
      allowPrivilegeEscalation: false,
      privileged: false,
      capabilities: { drop: ['ALL'] },
    });
    expect(container.securityContext.capabilities.add).toBeUndefined();
  });

  it('writes only to a size-limited /tmp emptyDir', () => {
    const tmp = container.volumeMounts.find((m: Any) => m.mountPath === '/tmp');
    expect(spec.volumes.find((v: Any) => v.name === tmp.name).emptyDir).toEqual({ sizeLimit: '64Mi' });
    const writable = container.volumeMounts.filter((m: Any) => !m.readOnly).map((m: Any) => m.mountPath);
    expect(writable).toEqual(['/tmp']);
  });

  it('shares nothing with the host', () => {
    for (const key of ['hostNetwork', 'hostPID', 'hostIPC']) expect(spec[key], key).toBeUndefined();
    expect(spec.volumes.some((v: Any) => v.hostPath)).toBe(false);
  });

  it('gets a service-account token only through its own projected, expiring volume', () => {
    expect(only(objects, 'ServiceAccount').automountServiceAccountToken).toBe(false);
    expect(spec.automountServiceAccountToken).toBe(false);
    const projected = spec.volumes.filter((v: Any) =>
      v.projected?.sources.some((s: Any) => s.serviceAccountToken),
    );
    expect(projected).toHaveLength(1);
    const token = projected[0].projected.sources.find((s: Any) => s.serviceAccountToken).serviceAccountToken;
    expect(token.expirationSeconds).toBeLessThanOrEqual(3607);
    // Mounted where in-cluster clients look, read-only, in the agent container only.
    expect(container.volumeMounts.find((m: Any) => m.name === projected[0].name)).toEqual({
      name: projected[0].name,
      mountPath: '/var/run/secrets/kubernetes.io/serviceaccount',
      readOnly: true,
    });
    expect(spec.containers).toHaveLength(1);
    expect(spec.initContainers).toBeUndefined();
  });

  it('never carries the API key in the pod spec', () => {
    const text = JSON.stringify(spec);
    expect(text).not.toContain('example-api-key-not-a-real-one');
    expect(container.env.some((e: Any) => e.name === 'MOORING_API_KEY')).toBe(false);
    expect(container.envFrom).toBeUndefined();
  });
});
