import { z } from 'zod';
import type { Builders } from './mode.ts';

/** Token (2.1), agent Connection (2.2) and Repository (2.3). */
export function authSchemas(b: Builders) {
  // Which token and connection fields are required is "not shown": only `id` is required.
  const Token = b.obj({
    id: z.string().min(1),
    provider_id: z.string().nullish(),
    created_at: b.dateTime().nullish(),
    updated_at: b.dateTime().nullish(),
    provider_account_label: z.string().nullish(),
    scopes: z.array(z.string()).nullish(),
    expires_at: b.dateTime().nullish(),
    is_default: z.boolean().nullish(),
  });

  const Connection = b.obj({
    id: z.string().min(1),
    agent_id: z.string().nullish(),
    oauth_token_id: z.string().nullish(),
    provider_id: z.string().nullish(),
    provider_account_label: z.string().nullish(),
    scopes: z.array(z.string()).nullish(),
    expires_at: b.dateTime().nullish(),
    created_by: z.string().nullish(),
    created_at: b.dateTime().nullish(),
  });

  const ConnectionList = b.obj({ data: z.array(Connection) });

  /** Every field is required (2.3). */
  const Repository = b.obj({
    host_integration_id: b.uuid(),
    id: z.number().int(),
    name: z.string(),
    owner: z.string(),
    url: z.string(),
    default_branch: z.string(),
  });

  return { Token, Connection, ConnectionList, Repository };
}
