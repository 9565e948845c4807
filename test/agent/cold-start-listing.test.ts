/**
 * A restart reads its cluster from list calls (ADR 0008): a new agent (its apply memo empty) over
 * a converged cluster makes no write and no per-object GET; the cycle's listing, taken whole at a
 * cold start and compared page by page, is all it reads. What it cannot judge from a listing (a
 * hand edit) is still repaired.
 */
import { randomBytes } from 'node:crypto';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WiredAgent } from '../../src/cli/wiring.ts';
import { ControlPlaneClient } from '../../src/control-plane/client.ts';
import type { ControlPlaneServer } from '../../src/control-plane/server/index.ts';
import { LISTED_KINDS } from '../../src/objects/kinds.ts';
import { type KubeApi, startKubeApi } from '../../src/sandbox/server.ts';
import { scaleByHand, startListenerControlPlane, wireTestAgent } from '../support/wired-agent.ts';
import { smallDeployment } from '../support/deployment-body.ts';

const LISTENER = '7d2e1b3c-4e5f-4a6b-9c7d-8e9f0a1b2c3d';
const NAMESPACE = 'apps';

let kube: KubeApi;
let cp: ControlPlaneServer;
let client: ControlPlaneClient;
let apiKey: string;

function wire(messages?: string[]): WiredAgent {
  return wireTestAgent({
    controlPlaneUrl: cp.url,
    apiKey,
    listenerId: LISTENER,
    namespaces: [NAMESPACE],
    kubeconfig: kube.kubeconfig,
    ...(messages
      ? {
          logLevel: 'debug',
          logger: pino(
            { level: 'debug' },
            { write: (line: string) => messages.push(String(JSON.parse(line).msg)) },
          ),
        }
      : {}),
  });
}

/**
 * One cycle of a new agent (its memo empty: a restart), its Events written before it returns;
 * its log messages go to `messages` when given.
 */
async function restart(messages?: string[]): Promise<void> {
  const wired = wire(messages);
  try {
    await wired.agent.runOnce(AbortSignal.timeout(20_000));
  } finally {
    await wired.close();
  }
}

const verbs = () => {
  const n: Record<string, number> = {};
  for (const r of kube.requests()) n[r.verb] = (n[r.verb] ?? 0) + 1;
  return n;
};

beforeAll(async () => {
  apiKey = randomBytes(16).toString('hex');
  kube = await startKubeApi({ namespaces: [NAMESPACE] });
  cp = await startListenerControlPlane({
    apiKey,
    listenerId: LISTENER,
    namespaces: [NAMESPACE],
    name: 'cold-start',
  });
  client = new ControlPlaneClient({ baseUrl: cp.url, apiKey, retries: 0 });
  for (const name of ['alpha', 'beta', 'gamma']) {
    await client.createDeployment({
      ...smallDeployment(name, LISTENER, NAMESPACE),
      secrets: [{ name: 'TOKEN', value: `value-of-${name}` }],
    });
  }
  await restart();
}, 30_000);

afterAll(async () => {
  await client?.close();
  await cp?.close();
  await kube?.close();
});

describe('a restart from list calls (ADR 0008)', () => {
  it('a new agent over a converged cluster makes 0 writes and no per-object GET (regression: one GET per object)', async () => {
    kube.clearRequests();
    await restart();
    const counts = verbs();
    expect(kube.requests({ write: true }).map((r) => `${r.verb} ${r.path}`)).toEqual([]);
    // The start-up check of the namespace aside, no object is read on its own.
    const gets = kube.requests({ verb: 'get' }).filter((r) => r.resource !== 'namespaces');
    expect(gets.map((r) => r.path)).toEqual([]);
    // The cycle's listing only: one list call per kind (every kind fits one page here), and one for
    // Ingresses, which a start lists once with exposure off (what an earlier setting left).
    expect(counts.list).toBe(LISTED_KINDS.length + 1);
  }, 30_000);

  it('the first reconcile after a restart renders nothing the listing found converged', async () => {
    const messages: string[] = [];
    await restart(messages);
    // One shortcut per deployment: what the listing compared is not rendered and compared again.
    expect(messages.filter((m) => m === 'converged: not rendered').length).toBe(3);
  }, 30_000);

  it('a hand edit made while no agent ran is repaired by the next agent at its first cycle', async () => {
    const before = kube.getObject('apps/v1', 'Deployment', NAMESPACE, 'beta') as {
      spec: { replicas: number };
    };
    expect(before.spec.replicas).toBe(1);
    await scaleByHand(kube.kubeconfig, NAMESPACE, 'beta', 7);
    kube.clearRequests();
    await restart();
    const after = kube.getObject('apps/v1', 'Deployment', NAMESPACE, 'beta') as {
      spec: { replicas: number };
    };
    expect(after.spec.replicas).toBe(1);
    // Only the edited object is written again.
    expect(kube.requests({ write: true }).filter((r) => r.resource !== 'events').length).toBe(1);
  }, 30_000);
});
