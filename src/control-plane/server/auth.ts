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
    const given = req.headersDistinct['x-api-key'];
    if (!given || given.every((v) => v.length === 0)) {
      throw new HttpError(401, 'Missing API key (X-Api-Key header)');
    }
    const offered = singleValue(req, 'x-api-key');
    if (offered === undefined || !timingSafeEqual(digest(offered), expected)) {
      throw new HttpError(401, 'Invalid API key');
    }
  };
}

/**
 * A header's one value. The same header sent twice with the same value (some HTTP clients merge
 * default and per-request headers that way) counts once; two different values count as none, so
 * a request that names two keys or two tenants is never read as either of them.
 */
function singleValue(req: IncomingMessage, name: string): string | undefined {
  const values = req.headersDistinct[name];
  if (!values || values.length === 0) return undefined;
  return values.every((v) => v === values[0]) ? values[0] : undefined;
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
  const values = req.headersDistinct['x-tenant-id'];
  const value = values === undefined ? undefined : singleValue(req, 'x-tenant-id');
  if (values !== undefined && value === undefined) {
    throw new HttpError(422, [
      {
        loc: ['header', 'x-tenant-id'],
        msg: 'header given twice with different values',
        type: 'value_error',
      },
    ]);
  }
  return parseOr422(TenantHeader, value, ['header', 'x-tenant-id']);
}
