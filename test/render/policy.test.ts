import { describe, expect, it } from 'vitest';
import { renderSpec, type Workload } from './helpers.ts';

describe('policy switches', () => {
  it('allowHostPath lets a hostPath volume through', () => {
    const { objects } = renderSpec(
      { volumes: [{ name: 'x', hostPath: { path: '/var/run' } }] },
      { allowHostPath: true, allowPrivileged: false },
    );
    expect(JSON.stringify(objects)).toContain('"hostPath":{"path":"/var/run"}');
  });

  it('allowPrivileged lets a privileged sidecar through without the escalation default', () => {
    const { objects } = renderSpec(
      { sidecars: [{ name: 'p', securityContext: { privileged: true } }] },
      { allowHostPath: false, allowPrivileged: true },
    );
    const api = objects.find(
      (o) => o.kind === 'Deployment' && o.metadata.name === 'shop-api',
    ) as unknown as Workload;
    const sidecar = api.spec.template.spec.containers.find((c: { name: string }) => c.name === 'p');
    expect(sidecar!.securityContext).toEqual({ privileged: true });
  });

  it('a user securityContext is merged over allowPrivilegeEscalation: false', () => {
    const { objects } = renderSpec({ sidecars: [{ name: 's', securityContext: { runAsUser: 1000 } }] });
    const api = objects.find(
      (o) => o.kind === 'Deployment' && o.metadata.name === 'shop-api',
    ) as unknown as Workload;
    expect(api.spec.template.spec.containers[1]!.securityContext).toEqual({
      allowPrivilegeEscalation: false,
      runAsUser: 1000,
    });
    expect(api.spec.template.spec.securityContext).toEqual({ seccompProfile: { type: 'RuntimeDefault' } });
  });
});
