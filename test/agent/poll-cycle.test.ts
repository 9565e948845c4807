import { describe, expect, it } from 'vitest';
import { openPollCycle } from '../../src/agent/poll-cycle.ts';
import type { DesiredDeployment, Snapshot } from '../../src/agent/poller.ts';

const d = (id: string) =>
  ({ deployment: { id }, revision: undefined, hash: id }) as unknown as DesiredDeployment;

describe('PollCycle', () => {
  it('hands each deployment on as it comes, then ends with the complete snapshot', async () => {
    const writer = openPollCycle();
    const seen: string[] = [];
    const reading = (async () => {
      for await (const x of writer.cycle.desired) seen.push(x.deployment.id);
      return writer.cycle.snapshot;
    })();
    writer.ready(d('a'));
    await new Promise((resolve) => setImmediate(resolve));
    expect(seen).toEqual(['a']);
    writer.ready(d('b'));
    const snapshot: Snapshot = { deployments: [d('a'), d('b')], rejected: [], atMs: 1 };
    writer.complete(snapshot);
    writer.ready(d('late'));
    expect(await reading).toBe(snapshot);
    expect(seen).toEqual(['a', 'b']);
  });

  it('a failed poll ends `desired` with its failure after what came before it; the snapshot rejects', async () => {
    const writer = openPollCycle();
    writer.ready(d('a'));
    const failure = new Error('revision read failed');
    writer.fail(failure);
    const seen: string[] = [];
    await expect(
      (async () => {
        for await (const x of writer.cycle.desired) seen.push(x.deployment.id);
      })(),
    ).rejects.toBe(failure);
    expect(seen).toEqual(['a']);
    await expect(writer.cycle.snapshot).rejects.toBe(failure);
  });
});
