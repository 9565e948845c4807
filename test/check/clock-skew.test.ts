/** Clock skew against a server, from its Date header. */
import { describe, expect, it } from 'vitest';
import { clockSkewCheck } from '../../src/check/clock-skew.ts';

const NOW = Date.parse('2026-01-02T03:04:05Z');

describe('clock skew', () => {
  it('passes within 30 s either way', () => {
    expect(clockSkewCheck('control plane', new Date(NOW - 20_000).toUTCString(), NOW).status).toBe('ok');
  });

  it('fails when this clock is far off the server, saying by how much and which way', () => {
    const ahead = clockSkewCheck('control plane', new Date(NOW - 300_000).toUTCString(), NOW);
    expect(ahead).toMatchObject({ status: 'fail', detail: '300 s ahead of it (at most 30 s)' });
    const behind = clockSkewCheck('Kubernetes API', new Date(NOW + 120_000).toUTCString(), NOW);
    expect(behind).toMatchObject({ check: 'clock skew against the Kubernetes API', status: 'fail' });
    expect(behind.detail).toBe('120 s behind it (at most 30 s)');
  });

  it('warns without a Date header', () => {
    expect(clockSkewCheck('control plane', undefined, NOW).status).toBe('warn');
  });
});
