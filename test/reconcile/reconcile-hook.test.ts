/**
 * The agent's reconcile request becomes a reconcile: a changed deployment reads through the
 * direct resources, others through the cycle's listing, each under the request's signal, with the
 * render settings of the moment and the poll's hash as the input key.
 */
import { describe, expect, it, vi } from 'vitest';
import type { DeploymentRecord } from '../../src/contract/index.ts';
import type { RenderSettings } from '../../src/render/index.ts';
import { reconcileHook } from '../../src/reconcile/reconcile-hook.ts';
import type { Resources } from '../../src/reconcile/types.ts';

const seen = vi.hoisted(() => [] as Array<{ deps: unknown; input: unknown }>);
vi.mock('../../src/reconcile/reconcile.ts', () => ({
  reconcileDeployment: async (deps: unknown, input: unknown) => {
    seen.push({ deps, input });
    return { changeSet: { entries: [], dryRun: false } };
  },
}));

describe('reconcileHook', () => {
  it('reads a changed deployment directly, others through the listing, guarded by the signal', async () => {
    const cached = { name: 'cached' } as unknown as Resources;
    const direct = { name: 'direct' } as unknown as Resources;
    const guarded: Array<[unknown, AbortSignal]> = [];
    let settings = { listenerId: 'first' } as unknown as RenderSettings;
    const hook = reconcileHook({
      resources: { cached, direct },
      guard: (r, signal) => {
        guarded.push([r, signal]);
        return r;
      },
      deps: { logger: {} as never, settings: {} as never },
      renderSettings: () => settings,
    });
    const deployment = { id: 'd1' } as DeploymentRecord;
    const signal = new AbortController().signal;
    await hook({ deployment, revision: undefined, changed: true, hash: 'h1' }, signal);
    settings = { listenerId: 'second' } as unknown as RenderSettings;
    await hook({ deployment, revision: undefined }, signal);
    expect(guarded).toEqual([
      [direct, signal],
      [cached, signal],
    ]);
    expect(seen.map((s) => (s.deps as { resources: unknown }).resources)).toEqual([direct, cached]);
    expect(seen[0]?.input).toMatchObject({ inputKey: 'h1', settings: { listenerId: 'first' } });
    expect(seen[1]?.input).not.toHaveProperty('inputKey');
    expect(seen[1]?.input).toMatchObject({ settings: { listenerId: 'second' } });
  });

  it('asks a changed deployment for no pass of a judge-only listing: it does not wait for a cold listing to end', async () => {
    seen.length = 0;
    const listedPass = async () => undefined;
    const hook = reconcileHook({
      resources: { cached: {} as Resources, direct: {} as Resources },
      guard: (r) => r,
      deps: { logger: {} as never, settings: {} as never, listedPass },
      renderSettings: () => ({}) as RenderSettings,
    });
    const deployment = { id: 'd1' } as DeploymentRecord;
    const signal = new AbortController().signal;
    await hook({ deployment, revision: undefined, changed: true, hash: 'h2' }, signal);
    await hook({ deployment, revision: undefined, hash: 'h2' }, signal);
    expect(seen.map((s) => (s.deps as { listedPass?: unknown }).listedPass)).toEqual([undefined, listedPass]);
  });
});
