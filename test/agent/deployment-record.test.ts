/** A deployment's record: its transitions, and what a run may still tell once it returns. */
import { describe, expect, it } from 'vitest';
import { TrackedDeployment } from '../../src/agent/deployment-record.ts';
import { desired } from './deployments-fixtures.ts';

const pass = { key: '1', objects: 3, claimPrefixes: [] };

describe('TrackedDeployment', () => {
  it('goes listed, queued, running, settled; the applied digest and the converged pass follow the run', () => {
    const record = new TrackedDeployment(desired('a', '1'));
    expect(record.lifecycle).toBe('listed');
    record.queue();
    expect(record.lifecycle).toBe('queued');
    const run = record.start(null);
    expect(record.lifecycle).toBe('running');
    record.succeeded(run, pass);
    expect(record.lifecycle).toBe('settled');
    expect(record.reconciled(desired('a', '1'))).toBe(true);
    expect(record.changed(desired('a', '2'))).toBe(true);
    expect(record.takeConverged()).toEqual(pass);
    expect(record.takeConverged()).toBeUndefined();
  });

  it('keeps no converged pass of a run whose desired state was replaced while it ran', () => {
    const record = new TrackedDeployment(desired('a', '1'));
    const run = record.start(null);
    record.take(desired('a', '2'));
    record.succeeded(run, pass);
    expect(record.converged).toBeUndefined();
    expect(record.reconciled(desired('a', '1'))).toBe(true);
  });

  it('a refusal makes a run in flight stale, is new once per reason, and a later take lists it again', () => {
    const record = new TrackedDeployment(desired('a', '1'));
    const run = record.start(null);
    expect(record.refuse(desired('a', '1'), 'MOORING_E_X: no')).toBe(true);
    expect(record.refuse(desired('a', '1'), 'MOORING_E_X: no')).toBe(false);
    expect(record.refused).toBe(true);
    expect(record.current(run)).toBe(false);
    record.take(desired('a', '1'));
    expect(record.lifecycle).toBe('listed');
    expect(record.refusal).toBeUndefined();
    expect(record.current(record.start(null))).toBe(true);
  });

  it('a forgotten record takes nothing from a run that returns', () => {
    const record = new TrackedDeployment(desired('a', '1'));
    const run = record.start(null);
    record.forget();
    record.succeeded(run, pass);
    expect(record.lifecycle).toBe('forgotten');
    expect(record.current(run)).toBe(false);
    expect(record.holds).toBe(false);
    expect(record.converged).toBeUndefined();
  });

  it('hands its run to the report once', () => {
    const record = new TrackedDeployment(desired('a', '1'));
    const run = record.start('r1');
    expect(record.takeRun()).toBe(run);
    expect(record.takeRun()).toBeUndefined();
  });
});
