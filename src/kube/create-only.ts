/**
 * Create-only objects (annotation `mooring.dev/create-only: "true"`): created once, never updated
 * or overwritten. The Postgres credentials Secret is one: its `mooring.dev/generate-keys` keys are
 * filled with CSPRNG values at creation, so the password never leaves the cluster and is never rotated
 * behind the database's back.
 */
import { randomBytes } from 'node:crypto';
import { ANNOTATIONS } from '../labels.ts';
import type { KubeObject } from '../objects/kube-object.ts';

/** A source of random bytes; `crypto.randomBytes` unless a test injects another. */
export type RandomBytes = (size: number) => Buffer;

/** Bytes of entropy per generated value (32 bytes = 256 bits, 43 base64url characters). */
export const GENERATED_SECRET_BYTES = 32;

export function isCreateOnly(obj: KubeObject): boolean {
  return obj.metadata.annotations?.[ANNOTATIONS.createOnly] === 'true';
}

/** The keys to generate, from the comma list annotation. */
export function generateKeysOf(obj: KubeObject): string[] {
  const raw = obj.metadata.annotations?.[ANNOTATIONS.generateKeys] ?? '';
  return raw
    .split(',')
    .map((k) => k.trim())
    .filter((k) => k !== '');
}

/** A URL-safe random value (no characters that need quoting in a connection string). */
export function generateSecretValue(random: RandomBytes = randomBytes): string {
  return random(GENERATED_SECRET_BYTES).toString('base64url');
}

/**
 * The object to create: for a Secret, each key to generate that the object does not already carry
 * gets a fresh random value (in base64 `data`). Other create-only objects are sent as they are.
 */
export function withGeneratedKeys(obj: KubeObject, random: RandomBytes = randomBytes): KubeObject {
  const keys = generateKeysOf(obj);
  if (obj.kind !== 'Secret' || keys.length === 0) return obj;
  const out = structuredClone(obj);
  const data: Record<string, string> = { ...((out.data as Record<string, string> | undefined) ?? {}) };
  const stringData = (out.stringData as Record<string, string> | undefined) ?? {};
  for (const key of keys) {
    if (data[key] !== undefined || stringData[key] !== undefined) continue;
    data[key] = Buffer.from(generateSecretValue(random), 'utf8').toString('base64');
  }
  out.data = data;
  return out;
}
