/** The cold passes a judge-only listing vouches for (ADR 0010): what its judge found, and nothing more. */
import { describe, expect, it } from 'vitest';
import { ColdPasses } from '../../src/agent/cold-passes.ts';
import type { ColdPass } from '../../src/agent/cold-start.ts';
import type { KubeObject } from '../../src/objects/kube-object.ts';

const D = 'd-1';
const live: KubeObject = {
  apiVersion: 'v1',
  kind: 'Service',
  metadata: { name: 'web', namespace: 'apps', labels: { 'mooring.dev/deployment-id': D } },
};

describe('ColdPasses after a judge-only listing', () => {
  const pass: ColdPass = { key: 'k', objects: 2, claimPrefixes: [], namespace: 'apps' };
  const second: KubeObject = { ...live, metadata: { ...live.metadata, name: 'db' } };
  /** A restored pass for D, both of whose objects were listed (`verified` each). */
  const judged = (verified: [boolean, boolean], judgeOnly = true, complete = true) => {
    const passes = new ColdPasses();
    passes.restore(D, pass);
    passes.found(D, 'k', live, verified[0]);
    passes.found(D, 'k', second, verified[1]);
    passes.listed(judgeOnly, complete);
    return passes;
  };

  it('vouches for a deployment all of whose objects it found at their versions, with their health', () => {
    const got = judged([true, true]).takeListed(D, 'k', 'apps');
    expect(got?.pass).toEqual({ key: 'k', objects: 2, claimPrefixes: [] });
    expect(got?.health).toMatchObject({ state: 'Ready', reason: '2 objects ready' });
  });

  it('vouches for none with an object changed, missing, or after a listing kept whole or started over', () => {
    expect(judged([true, false]).takeListed(D, 'k', 'apps')).toBeUndefined();
    const missing = new ColdPasses();
    missing.restore(D, pass);
    missing.found(D, 'k', live, true);
    missing.listed(true, true);
    expect(missing.takeListed(D, 'k', 'apps')).toBeUndefined();
    expect(judged([true, true], false).takeListed(D, 'k', 'apps')).toBeUndefined();
    expect(judged([true, true], true, false).takeListed(D, 'k', 'apps')).toBeUndefined();
    // Another key (the deployment changed while no agent ran).
    expect(judged([true, true]).takeListed(D, 'k2', 'apps')).toBeUndefined();
    // An object being deleted, though at its version: the shortcut would refuse it too.
    const terminating = new ColdPasses();
    terminating.restore(D, pass);
    terminating.found(D, 'k', live, true);
    terminating.found(
      D,
      'k',
      { ...second, metadata: { ...second.metadata, deletionTimestamp: 'now' } },
      true,
    );
    terminating.listed(true, true);
    expect(terminating.takeListed(D, 'k', 'apps')).toBeUndefined();
  });
});
