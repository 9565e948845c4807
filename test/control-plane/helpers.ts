import { request } from 'undici';
import { ControlPlaneClient, type ControlPlaneClientOptions } from '../../src/control-plane/client.ts';
import {
  type ControlPlaneOptions,
  type ControlPlaneServer,
  startControlPlane,
} from '../../src/control-plane/server/index.ts';
import type { DeploymentCreate } from '../../src/contract/index.ts';

export const API_KEY = 'test-key-3f9a1c-canary';
export const LISTENER_ID = '11111111-1111-4111-8111-111111111111';
export const OTHER_LISTENER_ID = '22222222-2222-4222-8222-222222222222';
export const INTEGRATION_ID = '33333333-3333-4333-8333-333333333333';
export const FORGE_INTEGRATION_ID = '44444444-4444-4444-8444-444444444444';

/** A seed with two listeners, tokens, connections and both kinds of integration. */
export const BASE_SEED = {
  listeners: [
    {
      id: LISTENER_ID,
      compute_type: 'k8s',
      compute_id: 'cluster-a',
      compute_config: { k8s_namespaces: ['default'] },
    },
    { id: OTHER_LISTENER_ID, compute_type: 'k8s', compute_id: 'cluster-b', version: '1.0.0' },
  ],
  tokens: [
    { id: 'tok-1', provider_id: 'vcshost', scopes: ['repo'], is_default: true },
    { id: 'tok-2', provider_id: 'other', provider_account_label: 'bob' },
  ],
  connections: [
    { id: 'conn-1', agent_id: 'agent-a', oauth_token_id: 'tok-1', provider_id: 'vcshost' },
    { id: 'conn-2', agent_id: 'agent-b', oauth_token_id: 'tok-2', provider_id: 'other' },
  ],
  integrations: [
    {
      id: INTEGRATION_ID,
      kind: 'vcshost',
      repos: [
        {
          id: 1,
          name: 'app',
          owner: 'acme',
          url: 'https://vcshost.example/acme/app',
          default_branch: 'main',
        },
      ],
    },
    {
      id: FORGE_INTEGRATION_ID,
      kind: 'forge',
      repos: [
        { id: 2, name: 'lib', owner: 'acme', url: 'https://forge.example/acme/lib', default_branch: 'trunk' },
      ],
    },
  ],
};

export interface Harness {
  server: ControlPlaneServer;
  client: ControlPlaneClient;
  close(): Promise<void>;
}

/** A server on 127.0.0.1:0 with the base seed, and a client for it. */
export async function harness(
  options: {
    seed?: object;
    db?: string;
    client?: Partial<ControlPlaneClientOptions>;
    server?: Partial<ControlPlaneOptions>;
  } = {},
): Promise<Harness> {
  const server = await startControlPlane({
    apiKey: API_KEY,
    seed: options.seed ?? BASE_SEED,
    ...(options.db ? { db: options.db } : {}),
    ...options.server,
  });
  const client = new ControlPlaneClient({
    baseUrl: server.url,
    apiKey: API_KEY,
    retries: 0,
    ...options.client,
  });
  return {
    server,
    client,
    close: async () => {
      await client.close();
      await server.close();
    },
  };
}

/** A valid external_docker create body assigned to the test listener. */
export function dockerDeployment(name: string, overrides: Partial<DeploymentCreate> = {}): DeploymentCreate {
  return {
    name,
    source: 'external_docker',
    source_config: {
      deployment_type: 'dev',
      listener_id: LISTENER_ID,
      listener_config: { k8s_namespace: 'default' },
      resource_spec: { min_scale: 1, max_scale: 2, cpu: 0.5, memory_mb: 256 },
    },
    source_revision_config: { image_uri: 'ghcr.io/example/app:1.0.0' },
    secrets: [{ name: 'API_TOKEN', value: 's3cret-value' }],
    ...overrides,
  };
}

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
  text: string;
}

/** A raw HTTP call, for status codes and bodies the client would turn into errors. */
export async function raw(
  baseUrl: string,
  method: string,
  path: string,
  options: { body?: string | Buffer; headers?: Record<string, string>; apiKey?: string | null } = {},
): Promise<RawResponse> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.apiKey !== null) headers['x-api-key'] = options.apiKey ?? API_KEY;
  if (options.body !== undefined && !('content-type' in headers))
    headers['content-type'] = 'application/json';
  const res = await request(`${baseUrl}${path}`, {
    method: method as 'GET',
    headers,
    ...(options.body !== undefined ? { body: options.body } : {}),
  });
  const text = await res.body.text();
  let body: unknown;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = text;
  }
  return { status: res.statusCode, headers: res.headers, body, text };
}

/** Drains an async iterator of pages into one array of pages. */
export async function pagesOf<T>(iterator: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const page of iterator) out.push(page);
  return out;
}

/** A clock tests move by hand: `now()` for the server, `advance(ms)` to move it on. */
export function manualClock(startIso = '2026-11-29T00:00:00.000Z') {
  let at = Date.parse(startIso);
  return {
    now: () => new Date(at),
    advance: (ms: number) => {
      at += ms;
    },
  };
}
