/** The reference control plane under load for 30 s at ~1,000 requests/s (`npm run soak`). */
import { describe, expect, it } from 'vitest';
import { loadControlPlane } from './lib/load.ts';

describe('reference control plane under load (30 s at ~1,000 requests/s)', () => {
  it('answers every request, none with a 5xx, and reports its p99', async () => {
    const r = await loadControlPlane({ durationSeconds: 30, ratePerSecond: 1000 });
    console.log(`control-plane load (30 s): ${JSON.stringify(r)}`);
    expect(r.total).toBeGreaterThan(10_000);
    expect(r.status5xx).toBe(0);
    expect(r.errors).toBe(0);
    expect(r.timeouts).toBe(0);
    expect(r.non2xx).toBe(0);
  }, 120_000);
});
