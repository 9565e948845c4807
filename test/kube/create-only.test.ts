import { describe, expect, it } from 'vitest';
import {
  generateKeysOf,
  generateSecretValue,
  isCreateOnly,
  withGeneratedKeys,
} from '../../src/kube/create-only.ts';
import { credentialsSecret, envSecret } from './fixtures.ts';

describe('create-only objects', () => {
  it('recognizes the annotations', () => {
    expect(isCreateOnly(credentialsSecret('ns'))).toBe(true);
    expect(isCreateOnly(envSecret('ns'))).toBe(false);
    expect(generateKeysOf(credentialsSecret('ns'))).toEqual(['POSTGRES_PASSWORD']);
  });

  it('fills the keys to generate from the random source, leaving given keys alone', () => {
    const seen: number[] = [];
    const random = (n: number) => {
      seen.push(n);
      return Buffer.alloc(n, 7);
    };
    const out = withGeneratedKeys(credentialsSecret('ns'), random);
    const password = Buffer.from(
      (out.data as Record<string, string>).POSTGRES_PASSWORD as string,
      'base64',
    ).toString();
    expect(password).toBe(Buffer.alloc(32, 7).toString('base64url'));
    expect(seen).toEqual([32]);
    expect(out.stringData).toEqual({ POSTGRES_USER: 'postgres', POSTGRES_DB: 'postgres' });
    const given = credentialsSecret('ns');
    given.stringData = { POSTGRES_PASSWORD: 'chosen' };
    expect(
      (withGeneratedKeys(given, random).data as Record<string, string>).POSTGRES_PASSWORD,
    ).toBeUndefined();
  });

  it('generates distinct URL-safe values with the real CSPRNG', () => {
    const a = generateSecretValue();
    const b = generateSecretValue();
    expect(a).not.toBe(b);
    expect(a).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });
});
