/**
 * An agent that dies without its stop's save (killed, out of memory) leaves the restart memo of its
 * last scheduled save, and the next agent uses it (ADR 0010, 1 and 4). The schedule is made due at
 * every cycle here (it is every five minutes), and a stop whose save the API server refuses stands
 * for the crash: nothing more is written after the scheduled save.
 */
import { randomBytes } from 'node:crypto';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ControlPlaneClient } from '../../src/control-plane/client.ts';
import type { ControlPlaneServer } from '../../src/control-plane/server/index.ts';
import { type KubeApi, startKubeApi } from '../../src/sandbox/server.ts';
import { runWiredUntil, startListenerControlPlane, wireTestAgent } from '../support/wired-agent.ts';
import { smallDeployment } from '../support/deployment-body.ts';

vi.mock(import('../../src/agent/memo-schedule.ts'), async (original) => {
  const m = await original();
  class EveryCycle extends m.MemoSchedule {
    override due(_nowMs: number, level: Parameters<InstanceType<typeof m.MemoSchedule>['due']>[1] = 'ok') {
      return level !== 'short';
    }
  }
  return { ...m, MemoSchedule: EveryCycle };
});

const LISTENER = '6c2f8d3e-4a5b-4c6d-9e7f-8a9b0c1d2e3f';
const NAMESPACE = 'apps';
const OWN = 'mooring-system';
const MEMO = 'mooring-restart-memo';
const NAMES = ['alpha', 'beta', 'gamma'];

let kube: KubeApi;
let cp: ControlPlaneServer;
let apiKey: string;

interface Line {
  msg: string;
  deployments?: number;
}

/**
 * Runs an agent with `env` until `enough(lines)` holds, then stops it (as SIGTERM does); `lines`
 * gets its log.
 */
async function runAgent(
  enough: (lines: Line[]) => boolean,
  lines: Line[] = [],
  env: Record<string, string> = {},
): Promise<void> {
  let done!: () => void;
  const reached = new Promise<void>((resolve) => {
    done = resolve;
  });
  const wired = wireTestAgent({
    controlPlaneUrl: cp.url,
    apiKey,
    listenerId: LISTENER,
    namespaces: [NAMESPACE],
    kubeconfig: kube.kubeconfig,
    env: { MOORING_RESTART_MEMO: MEMO, MOORING_LEASE_NAMESPACE: OWN, MOORING_POLL_INTERVAL: '0.2', ...env },
    logLevel: 'debug',
    logger: pino(
      { level: 'debug' },
      {
        write: (text: string) => {
          lines.push(JSON.parse(text) as Line);
          if (enough(lines)) done();
        },
      },
    ),
  });
  await runWiredUntil(wired, reached);
}

const storedMemo = () =>
  (kube.getObject('v1', 'ConfigMap', OWN, MEMO) as { binaryData?: Record<string, string> } | undefined)
    ?.binaryData?.['memo.sealed'];

beforeAll(async () => {
  apiKey = randomBytes(16).toString('hex');
  kube = await startKubeApi({ namespaces: [NAMESPACE, OWN] });
  cp = await startListenerControlPlane({
    apiKey,
    listenerId: LISTENER,
    namespaces: [NAMESPACE],
    name: 'crash',
  });
  const client = new ControlPlaneClient({ baseUrl: cp.url, apiKey, retries: 0 });
  for (const name of NAMES) await client.createDeployment(smallDeployment(name, LISTENER, NAMESPACE));
  await client.close();
}, 60_000);

afterAll(async () => {
  await cp?.close();
  await kube?.close();
});

describe('a crash leaves the restart memo of the last scheduled save', () => {
  it('the next agent takes it over: nothing rendered, nothing written, no revision read', async () => {
    // The first agent creates everything and "crashes" at a scheduled save that began after its
    // creations (the second one logged after them: the first may have begun before), and before a
    // resync or a rollout's requeue reconciled anything again (resyncs an hour apart, requeue 5 s).
    const first: Line[] = [];
    let created = 0;
    let saves = 0;
    const resyncLater = { MOORING_RESYNC_INTERVAL: '3600' };
    await runAgent(
      (lines) => {
        const last = lines.at(-1)?.msg ?? '';
        if (created < NAMES.length) {
          if (/^deployment \S+: created/.test(last)) created++;
          return false;
        }
        if (last !== 'restart memo saved' && last !== 'restart memo unchanged: not written') return false;
        if (++saves < 2) return false;
        kube.setFaults([
          { verb: 'update', resource: 'configmaps', status: 500 },
          { verb: 'create', resource: 'configmaps', status: 500 },
        ]);
        return true;
      },
      first,
      resyncLater,
    );
    expect(first.filter((l) => /^deployment \S+: /.test(l.msg))).toHaveLength(NAMES.length);
    const saved = first.filter((l) => l.msg === 'restart memo saved').at(-1);
    expect(saved?.deployments).toBe(NAMES.length);
    const left = storedMemo();
    expect(left).toBeTruthy();
    kube.clearFaults();

    kube.clearRequests();
    cp.resetStats();
    const next: Line[] = [];
    await runAgent(
      (lines) => lines.filter((l) => l.msg === 'converged: not rendered').length >= NAMES.length,
      next,
    );
    expect(next.find((l) => l.msg === 'restart memo taken over')?.deployments).toBe(NAMES.length);
    expect(next.some((l) => l.msg.startsWith('deployment ') && l.msg.includes('created'))).toBe(false);
    const writes = kube
      .requests({ write: true })
      .filter((r) => r.resource !== 'events' && r.resource !== 'configmaps');
    expect(writes).toEqual([]);
    expect(Object.keys(cp.stats().byRoute).filter((r) => r.includes('/revisions'))).toEqual([]);
  }, 60_000);
});
