/**
 * Namespace lifecycle through real kubectl, as on a real cluster: every namespace has a `default`
 * ServiceAccount and the `kube-root-ca.crt` ConfigMap; a deleted namespace stays Terminating (with
 * the namespace controller's conditions) while finalizers hold its content, and refuses new content
 * with 403 meanwhile.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { manifest, type Sandbox, startSandbox } from './helpers.ts';

describe('namespace lifecycle through real kubectl', () => {
  let sb: Sandbox;
  beforeAll(async () => {
    sb = await startSandbox({ namespaces: ['apps'] });
  });
  afterAll(async () => {
    await sb.close();
  });

  it('a new namespace, and those made at start, get a default ServiceAccount and kube-root-ca.crt', async () => {
    const file = manifest(sb, 'fresh.yaml', 'apiVersion: v1\nkind: Namespace\nmetadata: {name: fresh}\n');
    expect((await sb.kubectl(['create', '-f', file])).code).toBe(0);
    for (const ns of ['fresh', 'apps', 'default', 'kube-system']) {
      const sa = await sb.kubectl(['get', 'serviceaccount', 'default', '-n', ns, '-o', 'name']);
      expect(sa.stdout.trim()).toBe('serviceaccount/default');
      const ca = await sb.kubectl([
        'get',
        'configmap',
        'kube-root-ca.crt',
        '-n',
        ns,
        '-o',
        'jsonpath={.data.ca\\.crt}',
      ]);
      expect(ca.stdout).toBe(sb.api.caPem);
    }
  });

  it('the controllers put back a deleted default ServiceAccount or root CA ConfigMap', async () => {
    expect((await sb.kubectl(['delete', 'configmap', 'kube-root-ca.crt', '-n', 'apps'])).code).toBe(0);
    expect((await sb.kubectl(['delete', 'serviceaccount', 'default', '-n', 'apps'])).code).toBe(0);
    const back = await sb.kubectl([
      'get',
      'configmap/kube-root-ca.crt',
      'serviceaccount/default',
      '-n',
      'apps',
      '-o',
      'name',
    ]);
    expect(back.stdout.trim().split('\n')).toEqual(['configmap/kube-root-ca.crt', 'serviceaccount/default']);
  });

  it('delete --wait=false: Terminating with the kubernetes finalizer while a finalizer holds content; new content is refused', async () => {
    const file = manifest(
      sb,
      'held.yaml',
      `apiVersion: v1
kind: Namespace
metadata: {name: held}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: hold, namespace: held, finalizers: [example.com/hold]}
data: {k: v}
---
apiVersion: v1
kind: Secret
metadata: {name: plain, namespace: held}
stringData: {k: v}
`,
    );
    expect((await sb.kubectl(['create', '-f', file])).code).toBe(0);
    const deleted = await sb.kubectl(['delete', 'namespace', 'held', '--wait=false']);
    expect(deleted.stdout.trim()).toBe('namespace "held" deleted');
    const shown = await sb.kubectl(['get', 'namespace', 'held', '--no-headers']);
    expect(shown.stdout).toMatch(/^held\s+Terminating\s/);

    const ns = JSON.parse((await sb.kubectl(['get', 'namespace', 'held', '-o', 'json'])).stdout);
    expect(ns.metadata.deletionTimestamp).toEqual(expect.any(String));
    expect(ns.spec.finalizers).toEqual(['kubernetes']);
    expect(ns.status.phase).toBe('Terminating');
    const conditions = Object.fromEntries(
      (ns.status.conditions as { type: string; status: string; reason: string; message: string }[]).map(
        (c) => [c.type, [c.status, c.reason, c.message]],
      ),
    );
    expect(conditions).toEqual({
      NamespaceDeletionDiscoveryFailure: [
        'False',
        'ResourcesDiscovered',
        'All resources successfully discovered',
      ],
      NamespaceDeletionGroupVersionParsingFailure: [
        'False',
        'ParsedGroupVersions',
        'All legacy kube types successfully parsed',
      ],
      NamespaceDeletionContentFailure: [
        'False',
        'ContentDeleted',
        'All content successfully deleted, may be waiting on finalization',
      ],
      NamespaceContentRemaining: [
        'True',
        'SomeResourcesRemain',
        'Some resources are remaining: configmaps. has 1 resource instances',
      ],
      NamespaceFinalizersRemaining: [
        'True',
        'SomeFinalizerRemain',
        'Some finalizers are remaining: example.com/hold in 1 resource instances',
      ],
    });
    // Content without finalizers is gone already; the held ConfigMap is being deleted.
    expect((await sb.kubectl(['get', 'secret', 'plain', '-n', 'held'])).stderr).toContain('NotFound');
    const hold = JSON.parse(
      (await sb.kubectl(['get', 'configmap', 'hold', '-n', 'held', '-o', 'json'])).stdout,
    );
    expect(hold.metadata.deletionTimestamp).toEqual(expect.any(String));

    const refused = await sb.kubectl(['create', 'configmap', 'late', '-n', 'held', '--from-literal=k=v']);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr.trim()).toBe(
      'error: failed to create configmap: configmaps "late" is forbidden: unable to create new content in namespace held because it is being terminated',
    );
    const raw = await sb.call('POST', '/api/v1/namespaces/held/configmaps', { metadata: { name: 'late' } });
    expect(raw.status).toBe(403);
    expect(raw.body).toMatchObject({
      reason: 'Forbidden',
      details: {
        name: 'late',
        kind: 'configmaps',
        causes: [
          {
            reason: 'NamespaceTerminating',
            message: 'namespace held is being terminated',
            field: 'metadata.namespace',
          },
        ],
      },
    });

    // Removing the finalizer lets the namespace go.
    const patched = await sb.kubectl([
      'patch',
      'configmap',
      'hold',
      '-n',
      'held',
      '--type=merge',
      '-p',
      '{"metadata":{"finalizers":null}}',
    ]);
    expect(patched.code).toBe(0);
    const waited = await sb.kubectl(['wait', '--for=delete', 'namespace/held', '--timeout=10s']);
    expect(waited.code).toBe(0);
    expect((await sb.kubectl(['get', 'namespace', 'held'])).stderr).toContain('namespaces "held" not found');
  });

  it('kubectl delete namespace waits and returns once nothing holds the namespace', async () => {
    const file = manifest(
      sb,
      'quick.yaml',
      `apiVersion: v1
kind: Namespace
metadata: {name: quick}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: c, namespace: quick}
`,
    );
    expect((await sb.kubectl(['create', '-f', file])).code).toBe(0);
    const deleted = await sb.kubectl(['delete', 'namespace', 'quick', '--timeout=10s']);
    expect(deleted.code).toBe(0);
    expect(sb.api.hasObject('v1', 'Namespace', undefined, 'quick')).toBe(false);
    expect(sb.api.hasObject('v1', 'ConfigMap', 'quick', 'kube-root-ca.crt')).toBe(false);
  });

  it('default, kube-system and kube-public may not be deleted', async () => {
    const refused = await sb.kubectl(['delete', 'namespace', 'default']);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr.trim()).toBe(
      'Error from server (Forbidden): namespaces "default" is forbidden: this namespace may not be deleted',
    );
    expect(sb.api.hasObject('v1', 'Namespace', undefined, 'default')).toBe(true);
  });
});
