/**
 * Watch resets and resumption with client-node's informer: when the server ends watches early
 * (fault injection, as an apiserver does on timeout or restart), the informer reconnects from its
 * last resourceVersion and misses no change.
 */
import { CoreV1Api, KubeConfig, makeInformer, type V1ConfigMap } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, type Sandbox, startSandbox } from './helpers.ts';

describe('informer across watch resets', () => {
  let sb: Sandbox;
  beforeAll(async () => {
    sb = await startSandbox({ namespaces: ['flaky'] });
  });
  afterAll(async () => {
    await sb.close();
  });

  it('every change made while watches keep being reset reaches the informer cache', async () => {
    const kc = new KubeConfig();
    kc.loadFromString(sb.api.kubeconfig);
    const core = kc.makeApiClient(CoreV1Api);
    sb.api.setFaults([{ verb: 'watch', resource: 'configmaps', watchResetAfterMs: 150 }]);
    const informer = makeInformer<V1ConfigMap>(kc, '/api/v1/namespaces/flaky/configmaps', () =>
      core.listNamespacedConfigMap({ namespace: 'flaky' }),
    );
    informer.on('error', () => {
      // client-node reports the end of a watch as an error; restart it as an operator would.
      setTimeout(() => void informer.start(), 20);
    });
    await informer.start();
    for (let i = 0; i < 10; i++) {
      await core.createNamespacedConfigMap({
        namespace: 'flaky',
        body: { metadata: { name: `c${i}` }, data: { v: String(i) } },
      });
      await new Promise((r) => setTimeout(r, 40));
    }
    // The namespace's own kube-root-ca.crt is cached too; the check is about the ten made here.
    const made = () => informer.list('flaky').filter((c) => c.metadata?.name !== 'kube-root-ca.crt');
    const cached = await eventually(() => (made().length === 10 ? made() : undefined), 300);
    await informer.stop();
    sb.api.clearFaults();
    expect(cached?.map((c) => c.metadata?.name).sort()).toEqual([
      'c0',
      'c1',
      'c2',
      'c3',
      'c4',
      'c5',
      'c6',
      'c7',
      'c8',
      'c9',
    ]);
    expect(sb.api.requests({ verb: 'watch', resource: 'configmaps' }).length).toBeGreaterThan(1);
  });
});
