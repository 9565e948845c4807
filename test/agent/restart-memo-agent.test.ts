/**
 * The restart memo at work (ADR 0010): a leader that stops saves what it verified; the next agent
 * takes it over and neither renders nor compares what nobody changed, yet repairs what was
 * changed while no agent ran, and trusts no snapshot it did not write.
 */
import { randomBytes } from 'node:crypto';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ControlPlaneClient } from '../../src/control-plane/client.ts';
import type { ControlPlaneServer } from '../../src/control-plane/server/index.ts';
import { createKubeClient } from '../../src/kube/clients.ts';
import { type KubeApi, startKubeApi } from '../../src/sandbox/server.ts';
import {
  runWiredUntil,
  scaleByHand,
  startListenerControlPlane,
  wireTestAgent,
} from '../support/wired-agent.ts';
import { smallDeployment } from '../support/deployment-body.ts';

// Counts renders: the judge and the reconciles both render through it.
const renders = vi.hoisted(() => ({ count: 0 }));
vi.mock(import('../../src/render/index.ts'), async (original) => {
  const m = await original();
  return {
    ...m,
    renderDeployment: (...args: Parameters<typeof m.renderDeployment>) => {
      renders.count += 1;
      return m.renderDeployment(...args);
    },
  };
});

const LISTENER = '5b1e7c2d-3f4a-4b5c-8d6e-7f8a9b0c1d2e';
const NAMESPACE = 'apps';
const OWN = 'mooring-system';
const MEMO = 'mooring-restart-memo';
const NAMES = ['alpha', 'beta', 'gamma'];

let kube: KubeApi;
let cp: ControlPlaneServer;
let apiKey: string;

/**
 * Runs an agent (`run`, as `mooring run` does) until each deployment was reconciled `times`
 * times, then stops it as SIGTERM does; its log messages go to `messages`.
 */
async function runAgent(times: number, messages: string[] = []): Promise<void> {
  const counts = new Map<string, number>();
  let enough!: () => void;
  const reconciled = new Promise<void>((resolve) => {
    enough = resolve;
  });
  const wired = wireTestAgent({
    controlPlaneUrl: cp.url,
    apiKey,
    listenerId: LISTENER,
    namespaces: [NAMESPACE],
    kubeconfig: kube.kubeconfig,
    env: { MOORING_RESTART_MEMO: MEMO, MOORING_LEASE_NAMESPACE: OWN, MOORING_POLL_INTERVAL: '0.2' },
    logLevel: 'debug',
    logger: pino(
      { level: 'debug' },
      { write: (line: string) => messages.push(String(JSON.parse(line).msg)) },
    ),
    onReconciled: (id) => {
      counts.set(id, (counts.get(id) ?? 0) + 1);
      if (counts.size === NAMES.length && [...counts.values()].every((n) => n >= times)) enough();
    },
  });
  await runWiredUntil(wired, reconciled);
}

const writes = () =>
  kube
    .requests({ write: true })
    .filter((r) => r.resource !== 'events')
    .map((r) => `${r.verb} ${r.resource} ${r.name ?? ''}`);

const storedMemo = () =>
  kube.getObject('v1', 'ConfigMap', OWN, MEMO) as { binaryData?: Record<string, string> } | undefined;

beforeAll(async () => {
  apiKey = randomBytes(16).toString('hex');
  kube = await startKubeApi({ namespaces: [NAMESPACE, OWN] });
  cp = await startListenerControlPlane({
    apiKey,
    listenerId: LISTENER,
    namespaces: [NAMESPACE],
    name: 'restart-memo',
  });
  const client = new ControlPlaneClient({ baseUrl: cp.url, apiKey, retries: 0 });
  for (const name of NAMES) {
    await client.createDeployment(smallDeployment(name, LISTENER, NAMESPACE));
  }
  await client.close();
  // Converged by its first cycle, verified by its second: what its stop saves.
  await runAgent(2);
}, 60_000);

afterAll(async () => {
  await cp?.close();
  await kube?.close();
});

describe('the restart memo (ADR 0010)', () => {
  it('a stopping leader saves it, sealed, in its own namespace', () => {
    const data = Buffer.from(storedMemo()?.binaryData?.['memo.sealed'] ?? '', 'base64');
    expect(data.length).toBeGreaterThan(100);
    // No object name, namespace or kind shows through.
    for (const clue of ['alpha', NAMESPACE, 'Deployment'])
      expect(data.toString('latin1')).not.toContain(clue);
  });

  it('the next agent takes it over: nothing rendered, nothing written, no object read alone (regression: every object compared again)', async () => {
    kube.clearRequests();
    renders.count = 0;
    const messages: string[] = [];
    await runAgent(1, messages);
    expect(messages).toContain('restart memo taken over');
    expect(renders.count).toBe(0);
    expect(messages.filter((m) => m === 'converged: not rendered').length).toBe(NAMES.length);
    // Nothing written, the memo included: it is unchanged.
    expect(writes()).toEqual([]);
    const gets = kube.requests({ verb: 'get' }).map((r) => `${r.resource} ${r.name ?? ''}`);
    expect(gets.filter((g) => !g.startsWith('namespaces '))).toEqual([`configmaps ${MEMO}`]);
  }, 30_000);

  it('the next agent reads no revision the memo knew: the control plane is asked for its listing alone (regression: a revision read per deployment)', async () => {
    cp.resetStats();
    renders.count = 0;
    const messages: string[] = [];
    await runAgent(1, messages);
    expect(messages).toContain('restart memo taken over');
    expect(renders.count).toBe(0);
    const routes = Object.keys(cp.stats().byRoute);
    expect(routes).toContain('GET /v2/deployments');
    expect(routes.filter((r) => r.includes('/revisions'))).toEqual([]);
  }, 30_000);

  it('an object edited while no agent ran is repaired, though the memo says converged', async () => {
    await scaleByHand(kube.kubeconfig, NAMESPACE, 'beta', 7);
    kube.clearRequests();
    renders.count = 0;
    await runAgent(1);
    // The edited deployment alone is rendered (by the judge, then by its reconcile).
    expect(renders.count).toBeGreaterThan(0);
    expect(renders.count).toBeLessThanOrEqual(2);
    const after = kube.getObject('apps/v1', 'Deployment', NAMESPACE, 'beta') as {
      spec: { replicas: number };
    };
    expect(after.spec.replicas).toBe(1);
    expect(writes().filter((w) => !w.includes('configmaps'))).toEqual(['apply deployments beta']);
  }, 30_000);

  it('a snapshot it did not seal is not used: every listed object is compared, nothing written', async () => {
    const http = createKubeClient(kube.kubeconfig);
    const cm = storedMemo()!;
    const forged = Buffer.from(cm.binaryData?.['memo.sealed'] ?? '', 'base64');
    forged[forged.length - 1] = (forged[forged.length - 1] ?? 0) ^ 1;
    await http.request({
      method: 'PUT',
      path: `/api/v1/namespaces/${OWN}/configmaps/${MEMO}`,
      body: { ...cm, binaryData: { 'memo.sealed': forged.toString('base64') } },
    });
    await http.close();
    kube.clearRequests();
    renders.count = 0;
    const messages: string[] = [];
    await runAgent(1, messages);
    expect(messages.some((m) => m.startsWith('restart memo not used: it does not open'))).toBe(true);
    // Judged as without a memo: every deployment rendered once, by the judge.
    expect(renders.count).toBe(NAMES.length);
    expect(messages).not.toContain('restart memo taken over');
    expect(writes().filter((w) => !w.includes('configmaps'))).toEqual([]);
    // Its own snapshot replaces the one it refused.
    expect(storedMemo()?.binaryData?.['memo.sealed']).not.toBe(forged.toString('base64'));
  }, 30_000);
  it('a deployment changed while no agent ran is rendered from its revision, read then (the memo knew the revision, not its content)', async () => {
    const client = new ControlPlaneClient({ baseUrl: cp.url, apiKey, retries: 0 });
    const listed = await client.listAllDeployments();
    const gamma = listed.items.find((d) => d.name === 'gamma');
    expect(gamma?.latest_revision_id).toBeTruthy();
    // The record changes (its memory), its revision does not (a source_config change makes none).
    await client.patchDeployment(gamma?.id ?? '', {
      source_config: {
        listener_id: LISTENER,
        listener_config: { k8s_namespace: NAMESPACE },
        resource_spec: { min_scale: 1, max_scale: 1, cpu: 0.25, memory_mb: 256 },
      },
    });
    const patched = (await client.listAllDeployments()).items.find((d) => d.name === 'gamma');
    expect(patched?.latest_revision_id).toBe(gamma?.latest_revision_id);
    await client.close();
    cp.resetStats();
    renders.count = 0;
    kube.clearRequests();
    await runAgent(1);
    // Its revision alone, once (the cold listing's judge and its reconcile both wanted it).
    const revisionReads = Object.entries(cp.stats().byRoute).filter(([r]) => r.includes('/revisions/'));
    expect(revisionReads.map(([, n]) => n)).toEqual([1]);
    expect(renders.count).toBeGreaterThan(0);
    expect(writes()).toContain('apply deployments gamma');
  }, 30_000);
});
