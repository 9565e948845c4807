/**
 * A restart whose listing's entries would not fit the heap (ADR 0010, "a restart under a heap too
 * small for its listing"): it still lists, judge-only, keeping no entry; a deployment all of whose
 * objects it found at the versions the restart memo holds is converged without a list of its own,
 * and only what changed while no agent ran is reconciled as a change is.
 */
import { randomBytes } from 'node:crypto';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ControlPlaneClient } from '../../src/control-plane/client.ts';
import type { ControlPlaneServer } from '../../src/control-plane/server/index.ts';
import { EXPOSURE_KIND_INFOS, LISTED_KINDS } from '../../src/objects/kinds.ts';
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

// The heap as at 10,000 deployments under 256 MiB: no listing's entries fit, nor a full resync,
// nor the orphan pass's own listing.
const heap = vi.hoisted(() => ({ tight: false }));
vi.mock(import('../../src/agent/memory-budget.ts'), async (original) => {
  const m = await original();
  class Tight extends m.MemoryBudget {
    override coldListingEntriesFit(listed: number): boolean {
      return !heap.tight && super.coldListingEntriesFit(listed);
    }
    override get resyncFits(): boolean {
      return !heap.tight && super.resyncFits;
    }
    override listingFits(bytesPerObject: number): boolean {
      return !heap.tight && super.listingFits(bytesPerObject);
    }
  }
  return { ...m, MemoryBudget: Tight };
});

const LISTENER = '6c2f8d3e-4a5b-4c6d-9e7f-8a9b0c1d2e3f';
const NAMESPACE = 'apps';
const OWN = 'mooring-system';
const MEMO = 'mooring-restart-memo';
const NAMES = ['alpha', 'beta', 'gamma'];

let kube: KubeApi;
let cp: ControlPlaneServer;
let apiKey: string;

/** Runs an agent until each deployment was reconciled once, then stops it as SIGTERM does. */
async function runAgent(messages: string[] = []): Promise<void> {
  const counts = new Set<string>();
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
      counts.add(id);
      if (counts.size === NAMES.length) enough();
    },
  });
  await runWiredUntil(wired, reconciled);
}

const writes = () =>
  kube
    .requests({ write: true })
    .filter((r) => r.resource !== 'events' && r.resource !== 'configmaps')
    .map((r) => `${r.verb} ${r.resource} ${r.name ?? ''}`);

/** List requests in the deployments' namespace. */
const lists = () => kube.requests({ verb: 'list', namespace: NAMESPACE });
/** The list requests of one listing of the namespace: one per kind (the exposure kinds' once). */
const ONE_LISTING = LISTED_KINDS.length + EXPOSURE_KIND_INFOS.length;

beforeAll(async () => {
  apiKey = randomBytes(16).toString('hex');
  kube = await startKubeApi({ namespaces: [NAMESPACE, OWN] });
  cp = await startListenerControlPlane({
    apiKey,
    listenerId: LISTENER,
    namespaces: [NAMESPACE],
    name: 'restart-judge-only',
  });
  const client = new ControlPlaneClient({ baseUrl: cp.url, apiKey, retries: 0 });
  for (const name of NAMES) await client.createDeployment(smallDeployment(name, LISTENER, NAMESPACE));
  await client.close();
  // The first agent converges with room to spare and saves its memo at its stop.
  await runAgent();
  heap.tight = true;
}, 60_000);

afterAll(async () => {
  await cp?.close();
  await kube?.close();
});

describe('a restart whose listing does not fit the heap', () => {
  it('lists judge-only and lists nothing per deployment for what it found converged (regression: every deployment listed its own objects)', async () => {
    kube.clearRequests();
    renders.count = 0;
    const messages: string[] = [];
    await runAgent(messages);
    expect(messages).toContain('restart memo taken over');
    expect(renders.count).toBe(0);
    expect(messages.filter((m) => m === 'converged: not rendered, judged as listed')).toHaveLength(
      NAMES.length,
    );
    // One listing of every kind, and no list of a deployment's own.
    expect(lists().length).toBeLessThanOrEqual(ONE_LISTING);
    expect(writes()).toEqual([]);
  }, 30_000);

  it('reconciles only the deployment edited while no agent ran, and repairs it', async () => {
    await scaleByHand(kube.kubeconfig, NAMESPACE, 'beta', 7);
    kube.clearRequests();
    renders.count = 0;
    const messages: string[] = [];
    await runAgent(messages);
    expect(messages.filter((m) => m === 'converged: not rendered, judged as listed')).toHaveLength(
      NAMES.length - 1,
    );
    // beta alone is rendered (by the judge, then by its reconcile) and lists its own objects (and
    // the claims and Secrets its identity check reads): fewer lists than two deployments' own.
    expect(renders.count).toBeGreaterThan(0);
    expect(renders.count).toBeLessThanOrEqual(2);
    expect(lists().length).toBeLessThan(ONE_LISTING + 2 * LISTED_KINDS.length);
    const after = kube.getObject('apps/v1', 'Deployment', NAMESPACE, 'beta') as {
      spec: { replicas: number };
    };
    expect(after.spec.replicas).toBe(1);
    expect(writes()).toEqual(['apply deployments beta']);
  }, 30_000);
});
