/**
 * Watches with label and field selectors as kube-apiserver serves them: an object that comes to
 * match the selector is ADDED, one that stops matching is DELETED (with its last matching state),
 * and one that changes while matching is MODIFIED. Shown with client-node's informer and with real
 * kubectl `get -w -l`.
 */
import { spawn } from 'node:child_process';
import {
  CoreV1Api,
  KubeConfig,
  makeInformer,
  PatchStrategy,
  setHeaderOptions,
  type V1ConfigMap,
} from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toolPath } from '../../scripts/install-tools.ts';
import { eventually, manifest, type Sandbox, startSandbox } from './helpers.ts';

describe('watch at the edge of a selector', () => {
  let sb: Sandbox;
  let kc: KubeConfig;
  let core: CoreV1Api;
  beforeAll(async () => {
    sb = await startSandbox({ namespaces: ['sel'] });
    kc = new KubeConfig();
    kc.loadFromString(sb.api.kubeconfig);
    core = kc.makeApiClient(CoreV1Api);
  });
  afterAll(async () => {
    await sb.close();
  });

  const label = (name: string, tier: string | null) =>
    core.patchNamespacedConfigMap(
      { name, namespace: 'sel', body: { metadata: { labels: { tier } } } },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );

  it('an informer with a label selector adds an object entering it and drops one leaving it', async () => {
    await core.createNamespacedConfigMap({
      namespace: 'sel',
      body: { metadata: { name: 'a', labels: { tier: 'web' } } },
    });
    await core.createNamespacedConfigMap({
      namespace: 'sel',
      body: { metadata: { name: 'b', labels: { tier: 'db' } } },
    });
    const informer = makeInformer<V1ConfigMap>(
      kc,
      '/api/v1/namespaces/sel/configmaps',
      () => core.listNamespacedConfigMap({ namespace: 'sel', labelSelector: 'tier=web' }),
      'tier=web',
    );
    const seen: string[] = [];
    informer.on('add', (o) => seen.push(`add ${o.metadata?.name}`));
    informer.on('update', (o) => seen.push(`update ${o.metadata?.name}`));
    informer.on('delete', (o) => seen.push(`delete ${o.metadata?.name} tier=${o.metadata?.labels?.tier}`));
    informer.on('error', () => {});
    await informer.start();
    const names = () =>
      informer
        .list('sel')
        .map((c) => c.metadata?.name)
        .sort();
    expect(names()).toEqual(['a']);

    await label('b', 'web'); // b enters the selector
    expect(await eventually(() => names().length === 2)).toBe(true);
    await label('a', 'db'); // a leaves it
    expect(await eventually(() => names().length === 1)).toBe(true);
    await core.patchNamespacedConfigMap(
      { name: 'b', namespace: 'sel', body: { data: { k: 'v' } } },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
    expect(await eventually(() => seen.includes('update b'))).toBe(true);
    await informer.stop();
    expect(names()).toEqual(['b']);
    // The DELETED event carries the object as it last matched (still tier=web).
    expect(seen).toEqual(['add a', 'add b', 'delete a tier=web', 'update b']);
  });

  /** Starts `kubectl get -w --output-watch-events` in `sel`; resolves once its watch is open. */
  async function kubectlWatch(args: string[]) {
    const child = spawn(
      toolPath('kubectl'),
      [
        '--kubeconfig',
        sb.kubeconfigPath,
        'get',
        '-n',
        'sel',
        '-w',
        ...args,
        '--output-watch-events',
        '--no-headers',
        '-v=6',
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    let log = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
    });
    child.stderr.on('data', (d: Buffer) => {
      log += d.toString();
    });
    // Changes are made once the watch is open: kubectl's log (-v=6) shows the watch request answered.
    expect(await eventually(() => log.includes('watch=true'), 1000)).toBe(true);
    return {
      /** The first `n` lines as `EVENT NAME`, once printed (then kubectl is stopped). */
      async lines(n: number) {
        const lines = await eventually(() => {
          const l = out
            .trim()
            .split('\n')
            .filter(Boolean)
            .map((s) => s.trim().split(/\s+/).slice(0, 2).join(' '));
          return l.length >= n ? l : undefined;
        }, 500);
        child.kill();
        return lines;
      },
    };
  }

  it('kubectl get -w -l prints ADDED and DELETED as objects cross the selector', async () => {
    await core.createNamespacedConfigMap({
      namespace: 'sel',
      body: { metadata: { name: 'k', labels: { tier: 'cache' } } },
    });
    const watch = await kubectlWatch(['configmaps', '-l', 'tier=edge']);
    await label('k', 'edge');
    await label('k', 'cache');
    const lines = await watch.lines(2);
    expect(lines).toEqual(['ADDED k', 'DELETED k']);
  });

  it('kubectl get pods -w --field-selector: a pod whose phase leaves the selector is DELETED', async () => {
    const pod = `apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: sel}\nspec: {containers: [{name: c, image: busybox:1.36}]}\n`;
    expect((await sb.kubectl(['create', '-f', manifest(sb, 'p.yaml', pod)])).code).toBe(0);
    const watch = await kubectlWatch(['pods', '--field-selector', 'status.phase=Pending']);
    const running = await sb.kubectl([
      'patch',
      'pod',
      'p',
      '-n',
      'sel',
      '--subresource=status',
      '--type=merge',
      '-p',
      '{"status":{"phase":"Running"}}',
    ]);
    expect(running.stderr).toBe('');
    expect(await watch.lines(2)).toEqual(['ADDED p', 'DELETED p']);
  });
});
