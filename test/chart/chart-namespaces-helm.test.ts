/**
 * createNamespaces through a real Helm release against the sandbox API: the namespaces are created
 * labelled, survive `helm uninstall` (helm.sh/resource-policy: keep), and an existing namespace is
 * not taken over.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { writeFileSync } from 'node:fs';
import { toolPath } from '../../scripts/install-tools.ts';
import { chartDir } from '../../scripts/render-deploy.ts';
import { type Sandbox, startSandbox } from '../sandbox/helpers.ts';
import { ciValueSets } from './helm.ts';

describe('createNamespaces in a real Helm release', () => {
  let sb: Sandbox;
  let runs = 0;
  /** Real helm; with `values`, on top of the chart's default value set. */
  const helm = (args: string[], values?: Record<string, unknown>) =>
    new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
      const home = path.join(sb.dir, 'helm-home');
      runs += 1;
      const file = path.join(sb.dir, `values-${runs}.yaml`);
      writeFileSync(file, stringify(values ?? {}));
      const valueArgs = values ? ['--values', ciValueSets().get('default')!, '--values', file] : [];
      execFile(
        toolPath('helm'),
        ['--kubeconfig', sb.kubeconfigPath, ...args, ...valueArgs],
        {
          timeout: 30_000,
          env: {
            PATH: process.env.PATH ?? '',
            HELM_CACHE_HOME: `${home}/cache`,
            HELM_CONFIG_HOME: `${home}/config`,
            HELM_DATA_HOME: `${home}/data`,
          },
        },
        (error, stdout, stderr) =>
          resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr }),
      );
    });
  const namespace = (name: string) => sb.api.getObject('v1', 'Namespace', undefined, name);

  beforeAll(async () => {
    sb = await startSandbox({ namespaces: ['mooring', 'legacy-apps'] });
  });
  afterAll(async () => {
    await sb?.close();
  });

  it('creates the labelled namespaces, and helm uninstall keeps them', async () => {
    const values = {
      createNamespaces: true,
      namespaces: ['team-x', 'team-y'],
      policy: { podSecurity: 'restricted' },
    };
    const install = await helm(['install', 'mooring', chartDir, '--namespace', 'mooring'], values);
    expect(install.code, install.stderr).toBe(0);
    for (const name of ['team-x', 'team-y']) {
      expect(namespace(name)?.metadata?.labels).toMatchObject({
        'pod-security.kubernetes.io/enforce': 'restricted',
        'pod-security.kubernetes.io/warn': 'restricted',
        'pod-security.kubernetes.io/audit': 'restricted',
      });
      expect(sb.api.getObject('rbac.authorization.k8s.io/v1', 'Role', name, 'mooring')).toBeDefined();
    }
    const uninstall = await helm(['uninstall', 'mooring', '--namespace', 'mooring']);
    expect(uninstall.code, uninstall.stderr).toBe(0);
    expect(uninstall.stdout + uninstall.stderr).toContain('kept due to the resource policy');
    for (const name of ['team-x', 'team-y']) {
      expect(namespace(name), name).toBeDefined();
      expect(sb.api.getObject('rbac.authorization.k8s.io/v1', 'Role', name, 'mooring')).toBeUndefined();
    }
  });

  it('does not take over a namespace that already exists, unless told to (--take-ownership)', async () => {
    const install = await helm(['install', 'other', chartDir, '--namespace', 'mooring'], {
      createNamespaces: true,
      namespaces: ['legacy-apps'],
    });
    expect(install.code).not.toBe(0);
    expect(install.stderr).toContain('Namespace "legacy-apps"');
    expect(install.stderr).toContain('exists and cannot be imported into the current release');
    expect(
      namespace('legacy-apps')?.metadata?.labels?.['pod-security.kubernetes.io/enforce'],
    ).toBeUndefined();
    // Unless the operator hands it over explicitly.
    const adopt = await helm(['install', 'other', chartDir, '--namespace', 'mooring', '--take-ownership'], {
      createNamespaces: true,
      namespaces: ['legacy-apps'],
    });
    expect(adopt.code, adopt.stderr).toBe(0);
    expect(namespace('legacy-apps')?.metadata?.labels?.['pod-security.kubernetes.io/enforce']).toBe(
      'baseline',
    );
  });
});
