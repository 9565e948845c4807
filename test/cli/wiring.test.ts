import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { abortable } from '../../src/cli/abortable.ts';
import { kubeconfigSource, kubeRateLimitOf, renderSettingsOf } from '../../src/cli/agent-settings.ts';
import { AUTO_KUBE_QPS } from '../../src/config.ts';
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
  it('takes a kubeconfig given by the caller (the sandbox) over every other source', () => {
    expect(
      kubeconfigSource({ kubeconfig: '/k' }, { KUBERNETES_SERVICE_HOST: '10.0.0.1' }, 'apiVersion: v1'),
    ).toBe('apiVersion: v1');
  });

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
      postgresImage: 'docker.io/library/postgres:16-alpine',
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

describe('the render settings, made once', () => {
  it('are the settings the parse made (no second merge), the members named by flags read off them', () => {
    const c = config(['--redis-image', 'r:2', '--pod-security', 'restricted']);
    expect(renderSettingsOf(c)).toBe(c.render);
    expect([c.redisImage, c.podSecurity, c.postgresImage]).toEqual([
      c.render.redisImage,
      c.render.policy.podSecurity,
      c.render.postgresImage,
    ]);
  });
});

describe('renderSettingsOf: references', () => {
  it("passes what deployments may refer to, the agent's own account and namespace included", () => {
    const tenant = '0d9e8f7a-6b5c-4d3e-8f2a-1b0c9d8e7f6a';
    const r = parseAgentConfig({
      argv: ['--deployment-service-accounts', 'runner', '--namespace-tenants', `apps=${tenant}`],
      env: {
        MOORING_CONTROL_PLANE_URL: 'http://cp',
        MOORING_API_KEY: 'k',
        MOORING_LISTENER_ID: '11111111-1111-4111-8111-111111111111',
        MOORING_NAMESPACES: 'apps',
        MOORING_SERVICE_ACCOUNT: 'mooring',
        MOORING_POD_NAMESPACE: 'apps',
        MOORING_ALLOW_SERVICE_ACCOUNT_TOKENS: 'true',
      },
    });
    if (!r.ok || r.help) throw new Error(`bad config: ${JSON.stringify(r)}`);
    expect(renderSettingsOf(r.config).references).toEqual({
      agentServiceAccount: 'mooring',
      agentNamespace: 'apps',
      serviceAccounts: ['runner'],
      allowServiceAccountTokens: true,
      namespaceTenants: { apps: tenant },
    });
  });

  it('defaults to no account known or listed, no tokens, no binding', () => {
    expect(renderSettingsOf(config()).references).toEqual({
      allowServiceAccountTokens: false,
      namespaceTenants: {},
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
      findOwned: async () => {
        calls.push('find');
        return undefined;
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

  it('gives every call the signal, so a call under way is cut (regression: checked only before each call)', async () => {
    const signals: (AbortSignal | undefined)[] = [];
    const inner = {
      applyAll: async (_o: unknown, opts?: { signal?: AbortSignal }) => {
        signals.push(opts?.signal);
        return { entries: [], dryRun: false };
      },
      listOwned: async (opts: { signal?: AbortSignal }) => {
        signals.push(opts.signal);
        return { objects: [], byId: new Map(), byDeployment: new Map() };
      },
      deleteAll: async (_o: unknown, opts: { signal?: AbortSignal }) => {
        signals.push(opts.signal);
        return { entries: [], dryRun: false };
      },
      findOwned: async (_o: unknown, _l: string, opts?: { signal?: AbortSignal }) => {
        signals.push(opts?.signal);
        return undefined;
      },
    };
    const controller = new AbortController();
    const guarded = abortable(inner, controller.signal);
    await guarded.listOwned({ namespaces: ['a'], listenerId: 'l' });
    await guarded.applyAll([], { dryRun: false });
    await guarded.deleteAll([], { deleteVolumes: false });
    const secret = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's', namespace: 'a' } };
    await guarded.findOwned(secret, 'l');
    expect(signals).toEqual([controller.signal, controller.signal, controller.signal, controller.signal]);
    controller.abort(new MooringError('MOORING_E_RECONCILE_TIMEOUT'));
    await expect(guarded.findOwned(secret, 'l')).rejects.toMatchObject({
      code: 'MOORING_E_RECONCILE_TIMEOUT',
    });
    expect(signals).toHaveLength(4);
  });
});

describe('kubeRateLimitOf', () => {
  it('starts `auto` at AUTO_KUBE_QPS until the server shows flow control; keeps a number as given', () => {
    expect(kubeRateLimitOf({ kubeQps: 'auto', kubeBurst: 7 })).toEqual({
      qps: AUTO_KUBE_QPS,
      burst: 7,
      untilServerFlowControl: true,
    });
    expect(kubeRateLimitOf({ kubeQps: 12, kubeBurst: 30 })).toEqual({ qps: 12, burst: 30 });
  });
});
