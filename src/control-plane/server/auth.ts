import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { z } from 'zod';
import { HttpError, parseOr422 } from './errors.ts';

/**
 * `X-Api-Key` check (docs/control-plane.md). Both sides are hashed first so the comparison takes the same
 * time whatever the length or content of the offered key.
 */
export function makeAuthCheck(apiKey: string): (req: IncomingMessage) => void {
  if (apiKey.length === 0) throw new Error('the control plane needs a non-empty API key');
  const expected = digest(apiKey);
  return (req) => {
    const offered = req.headers['x-api-key'];
    if (typeof offered !== 'string' || offered.length === 0) {
      throw new HttpError(401, 'Missing API key (X-Api-Key header)');
    }
    if (!timingSafeEqual(digest(offered), expected)) throw new HttpError(401, 'Invalid API key');
  };
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}

const TenantHeader = z.uuid().optional();

/**
 * The optional `X-Tenant-Id`. Given, it scopes deployments (listing, patching, deleting and new
 * ones) to that tenant; absent, requests see every tenant and create under the default one.
 */
export function tenantOf(req: IncomingMessage): string | undefined {
  const raw = req.headers['x-tenant-id'];
  return parseOr422(TenantHeader, Array.isArray(raw) ? raw[0] : raw, ['header', 'x-tenant-id']);
}
