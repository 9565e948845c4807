import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { abortable, kubeconfigSource, renderSettingsOf } from '../../src/agent/wiring.ts';
import { MooringError } from '../../src/errors.ts';
import { parseAgentConfig } from '../../src/config.ts';

function config(argv: string[] = []) {
  const r = parseAgentConfig({
    argv,
    env: {
      MOORING_CONTROL_PLANE_URL: 'http://cp',
      MOORING_API_KEY: 'k',
      MOORING_LISTENER_ID: '11111111-1111-4111-8111-111111111111',
      MOORING_NAMESPACES: 'apps',
    },
  });
  if (!r.ok || r.help) throw new Error('bad config');
  return r.config;
}

describe('kubeconfigSource', () => {
  it('prefers --kubeconfig, then in-cluster, then $KUBECONFIG, then ~/.kube/config', () => {
    expect(kubeconfigSource({ kubeconfig: '/k' }, { KUBERNETES_SERVICE_HOST: '10.0.0.1' })).toBe('/k');
    expect(
      kubeconfigSource({ kubeconfig: undefined }, { KUBERNETES_SERVICE_HOST: '10.0.0.1', KUBECONFIG: '/x' }),
    ).toBe('in-cluster');
    expect(kubeconfigSource({ kubeconfig: undefined }, { KUBECONFIG: `/a${path.delimiter}/b` })).toBe('/a');
    expect(kubeconfigSource({ kubeconfig: undefined }, {})).toMatch(/\.kube[/\\]config$/);
  });
});

describe('renderSettingsOf', () => {
  it('passes the agent settings the renderer needs', () => {
    const s = renderSettingsOf(
      config([
        '--redis-image',
        'r:1',
        '--storage-class',
        'fast',
        '--allow-privileged',
        '--cluster-domain',
        'c.example',
        '--pod-security',
        'restricted',
        '--allowed-volume-types',
        'nfs',
      ]),
    );
    expect(s).toMatchObject({
      listenerId: '11111111-1111-4111-8111-111111111111',
      redisImage: 'r:1',
      postgresImage: 'postgres:16-alpine',
      storageClassName: 'fast',
      clusterDomain: 'c.example',
      policy: {
        podSecurity: 'restricted',
        allowHostPath: false,
        allowPrivileged: true,
        allowedVolumeTypes: ['nfs'],
      },
    });
  });
});

describe('abortable', () => {
  it('refuses every resource call once the reconcile is aborted, with the abort reason', async () => {
    const calls: string[] = [];
    const inner = {
      applyAll: async () => {
        calls.push('apply');
        return { entries: [], dryRun: false };
      },
      listOwned: async () => {
        calls.push('list');
        return { objects: [], byId: new Map(), byDeployment: new Map() };
      },
      deleteAll: async () => {
        calls.push('delete');
        return { entries: [], dryRun: false };
      },
    };
    const controller = new AbortController();
    const guarded = abortable(inner, controller.signal);
    await guarded.listOwned({ namespaces: ['a'], listenerId: 'l' });
    controller.abort(new MooringError('MOORING_E_RECONCILE_TIMEOUT'));
    await expect(guarded.deleteAll([], { deleteVolumes: false })).rejects.toMatchObject({
      code: 'MOORING_E_RECONCILE_TIMEOUT',
    });
    await expect(guarded.applyAll([])).rejects.toThrow();
    expect(calls).toEqual(['list']);
  });
});
