/**
 * Acceptance: SIGTERM during a reconcile exits 0 within the grace period after letting the
 * reconcile finish; a restarted agent converges with no duplicate object, no re-created object
 * (uids unchanged, the generated Postgres password kept) and no write at all.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deploymentBody, NAMESPACE, spawnAgent, type Stack, startStack } from './harness.ts';
import type { AgentProcess } from '../support/agent-process.ts';
import { waitFor } from '../support/wait.ts';

const GRACE_S = 10;

interface Item {
  kind: string;
  metadata: { name: string; uid: string };
  data?: Record<string, string>;
}

describe('graceful shutdown', () => {
  let stack: Stack;
  let first: AgentProcess;
  let second: AgentProcess | undefined;

  const owned = async () =>
    (
      JSON.parse(
        await stack.kubectl([
          'get',
          'deploy,sts,svc,secret,hpa,pdb,networkpolicy',
          '-n',
          NAMESPACE,
          '-l',
          'app.kubernetes.io/managed-by=mooring',
          '-o',
          'json',
        ]),
      ) as { items: Item[] }
    ).items;

  beforeAll(async () => {
    stack = await startStack();
    await stack.client.createDeployment(deploymentBody('calm', 'registry.example/calm:1'));
  }, 60_000);

  afterAll(async () => {
    await first?.stop();
    await second?.stop();
    await stack?.close();
  });

  it('SIGTERM mid-reconcile: the reconcile finishes, exit 0 within the grace period', async () => {
    // Every write takes 400 ms: one reconcile of ~10 objects takes ~4 s. A cold start creates its
    // objects (a census found their names free, ADR 0007) rather than applying them.
    stack.kube.setFaults([
      { verb: 'apply', latencyMs: 400 },
      { verb: 'create', latencyMs: 400 },
    ]);
    first = spawnAgent(stack.agentEnv({ MOORING_SHUTDOWN_GRACE_PERIOD: String(GRACE_S) }));
    const objectWrites = () =>
      stack.kube
        .requests({ write: true })
        .filter((r) => !['events', 'leases', 'configmaps'].includes(r.resource));
    await waitFor('the first object written', () => objectWrites().length > 0, 30_000, 50);
    first.child.kill('SIGTERM');
    const sentAt = Date.now();
    const exit = await first.exited;
    const tookMs = Date.now() - sentAt;
    process.stdout.write(`shutdown: exit ${exit.code} ${tookMs} ms after SIGTERM (grace ${GRACE_S} s)\n`);
    expect(exit).toEqual({ code: 0, signal: null });
    expect(tookMs).toBeLessThan(GRACE_S * 1000);
    // The in-flight reconcile was allowed to finish: its log line is there.
    expect(first.stdout()).toMatch(/"msg":"reconciled"/);
    expect(first.stdout()).toMatch(/"inFlightFinished":true/);
    // Its Applied event, queued as the reconcile ended, was written before the agent exited.
    const events = stack.kube.requests({ resource: 'events', verb: 'create' });
    expect(events.map((r) => r.status)).toEqual([201]);
  }, 60_000);

  it('restart: converges with no duplicate and no write', async () => {
    stack.kube.clearFaults();
    const before = await owned();
    const secretBefore = before.find(
      (o) => o.kind === 'Secret' && o.metadata.name === 'calm-postgres-credentials',
    );
    expect(secretBefore?.data?.POSTGRES_PASSWORD).toBeTruthy();
    stack.kube.clearRequests();
    second = spawnAgent(stack.agentEnv());
    await waitFor('a reconcile after restart', () => /"msg":"reconciled"/.test(second!.stdout()), 30_000);
    const after = await owned();
    const key = (o: Item) => `${o.kind}/${o.metadata.name}`;
    expect(new Set(after.map(key)).size).toBe(after.length);
    expect(after.map(key).sort()).toEqual(before.map(key).sort());
    expect(after.map((o) => o.metadata.uid).sort()).toEqual(before.map((o) => o.metadata.uid).sort());
    const secretAfter = after.find((o) => o.metadata.uid === secretBefore!.metadata.uid);
    expect(secretAfter?.data?.POSTGRES_PASSWORD).toBe(secretBefore!.data!.POSTGRES_PASSWORD);
    const writes = stack.kube.requests().filter((r) => r.write && r.resource !== 'events');
    expect(writes.map((w) => `${w.verb} ${w.kind}/${w.name}`)).toEqual([]);
  }, 60_000);
});
