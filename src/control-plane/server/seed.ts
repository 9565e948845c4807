import { readFile } from 'node:fs/promises';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { DEPLOYMENT_STATUSES, describeIssues, strict } from '../../contract/index.ts';
import { MooringError } from '../../errors.ts';
import type { ControlStore } from './control-store.ts';
import { HttpError } from './errors.ts';
import { MAX_BODY_DEPTH } from './http-io.ts';
import { nestedDeeperThan } from '../../contract/depth.ts';

/**
 * A seed file (YAML or JSON) for demos and tests. Deployments go through the same rules as
 * `POST /v2/deployments` (first revision included); `id`, `tenant_id`, `status` and
 * `tag_value_ids` are extras only a seed can set. Tokens, connections and integrations exist only
 * through seeds: nothing on the wire creates them.
 */
export const Seed = z.strictObject({
  tenant_id: z.uuid().optional(),
  listeners: z.array(strict.ListenerCreate.extend({ id: z.uuid().optional() })).default([]),
  deployments: z
    .array(
      strict.DeploymentCreate.extend({
        id: z.uuid().optional(),
        tenant_id: z.uuid().optional(),
        status: z.enum(DEPLOYMENT_STATUSES).optional(),
        tag_value_ids: z.array(z.string().min(1)).optional(),
      }),
    )
    .default([]),
  tokens: z.array(strict.Token).default([]),
  connections: z.array(strict.Connection).default([]),
  integrations: z
    .array(
      z.strictObject({
        id: z.uuid(),
        kind: z.enum(['vcshost', 'forge']).default('vcshost'),
        repos: z.array(strict.Repository.omit({ host_integration_id: true })).default([]),
      }),
    )
    .default([]),
});
export type SeedInput = z.input<typeof Seed>;

export interface SeedResult {
  listeners: number;
  deployments: number;
  tokens: number;
  connections: number;
  integrations: number;
}

/** Reads a seed from a file path (YAML or JSON), or takes an object as is. */
export async function readSeed(source: string | object): Promise<unknown> {
  if (typeof source !== 'string') return source;
  let text: string;
  try {
    text = await readFile(source, 'utf8');
  } catch (err) {
    throw new MooringError('MOORING_E_INPUT_INVALID', `seed file ${source} cannot be read`, { cause: err });
  }
  try {
    return parseYaml(text);
  } catch (err) {
    throw new MooringError('MOORING_E_INPUT_INVALID', `seed file ${source} is not YAML or JSON`, {
      cause: err,
    });
  }
}

/**
 * Loads a seed in one transaction: a bad seed loads nothing. Records that already exist (same id,
 * same listener compute_id, same live deployment name) are skipped, so loading a seed again into
 * a file database after a restart changes nothing.
 */
export function loadSeed(store: ControlStore, raw: unknown): SeedResult {
  // A seed is a body like any other: the same depth limit, checked before anything walks it.
  if (nestedDeeperThan(raw, MAX_BODY_DEPTH)) {
    throw new MooringError(
      'MOORING_E_INPUT_INVALID',
      `seed is invalid: nested deeper than ${MAX_BODY_DEPTH} levels`,
    );
  }
  const parsed = Seed.safeParse(raw ?? {});
  if (!parsed.success) {
    throw new MooringError('MOORING_E_INPUT_INVALID', `seed is invalid: ${describeIssues(parsed.error)}`);
  }
  const seed = parsed.data;
  const result: SeedResult = { listeners: 0, deployments: 0, tokens: 0, connections: 0, integrations: 0 };
  const sql = store.db.sqlite;
  try {
    store.db.transaction(() => {
      for (const { id, ...listener } of seed.listeners) {
        const exists = sql
          .prepare('SELECT 1 FROM listeners WHERE id = ? OR compute_id = ?')
          .get(id ?? '', listener.compute_id);
        if (exists) continue;
        store.listeners.create(listener, id);
        result.listeners++;
      }
      for (const { id, tenant_id, status, tag_value_ids, ...deployment } of seed.deployments) {
        const tenantId = tenant_id ?? seed.tenant_id ?? store.defaultTenantId;
        const exists = sql
          .prepare(
            "SELECT 1 FROM deployments WHERE id = ? OR (tenant_id = ? AND name = ? AND status != 'AWAITING_DELETE')",
          )
          .get(id ?? '', tenantId, deployment.name);
        if (exists) continue;
        store.deployments.create(deployment, {
          tenantId,
          ...(id ? { id } : {}),
          ...(status ? { status } : {}),
          ...(tag_value_ids ? { tagValueIds: tag_value_ids } : {}),
        });
        result.deployments++;
      }
      for (const token of seed.tokens) {
        if (store.directory.addToken(token)) result.tokens++;
      }
      for (const connection of seed.connections) {
        if (store.directory.addConnection(connection)) result.connections++;
      }
      for (const integration of seed.integrations) {
        if (store.directory.addIntegration(integration.id, integration.kind, integration.repos)) {
          result.integrations++;
        }
      }
    });
  } catch (err) {
    if (err instanceof HttpError) {
      const detail =
        typeof err.detail === 'string'
          ? err.detail
          : err.detail.map((i) => `${i.loc.join('.')}: ${i.msg}`).join('; ');
      throw new MooringError('MOORING_E_INPUT_INVALID', `seed is invalid: ${detail}`, { cause: err });
    }
    throw err;
  }
  return result;
}
