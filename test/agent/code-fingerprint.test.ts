import { describe, expect, it } from 'vitest';
import { codeFingerprint } from '../../src/agent/code-fingerprint.ts';

describe('codeFingerprint (read anew at each call; its caller keeps it)', () => {
  it('gives the same digest of the same sources at each call', async () => {
    const [a, b] = [codeFingerprint(), codeFingerprint()];
    expect(a).not.toBe(b);
    const digest = await a;
    expect(digest).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(await b).toBe(digest);
  });
});
