/** The control-plane checks of `mooring check`, against the reference control plane. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { controlPlaneChecks } from '../../src/check/control-plane.ts';
import type { CheckResult } from '../../src/check/result.ts';
import { ControlPlaneClient } from '../../src/control-plane/client.ts';
import { Transport } from '../../src/control-plane/client-http.ts';
import { type ControlPlaneServer, startControlPlane } from '../../src/control-plane/server/index.ts';

const KEY = 'check-key-5d2e';

describe('control plane checks', () => {
  let cp: ControlPlaneServer;
  let listenerId: string;
  let webListenerId: string;
  const open: { close(): Promise<void> }[] = [];

  const run = (opts: { url?: string; apiKey?: string; listenerId?: string; namespaces?: string[] } = {}) => {
    const options = { baseUrl: opts.url ?? cp.url, apiKey: opts.apiKey ?? KEY, retries: 0 };
    const transport = new Transport(options);
    const client = new ControlPlaneClient(options);
    open.push(transport, client);
    return controlPlaneChecks(transport, client, {
      url: options.baseUrl,
      listenerId: opts.listenerId ?? listenerId,
      namespaces: opts.namespaces ?? ['apps'],
    });
  };
  const line = (checks: CheckResult[], name: string) => checks.find((c) => c.check === name);

  beforeAll(async () => {
    cp = await startControlPlane({ apiKey: KEY });
    const client = new ControlPlaneClient({ baseUrl: cp.url, apiKey: KEY });
    open.push(client);
    const create = async (ns: string[]) =>
      (
        await client.createListener({
          compute_type: 'k8s',
          compute_id: `c-${ns.join('-')}`,
          compute_config: { k8s_namespaces: ns },
          version: '0.0.0',
        })
      ).id;
    listenerId = await create(['apps']);
    webListenerId = await create(['apps', 'web']);
  });

  afterAll(async () => {
    for (const c of open) await c.close();
    await cp?.close();
  });

  it('passes: reachable, key accepted, listener there with its namespaces among ours, a Date header', async () => {
    const { checks, answer } = await run();
    expect(checks.map((c) => c.status)).toEqual(['ok', 'ok', 'ok', 'ok']);
    expect(answer?.headers.date).toBeDefined();
  });

  it('unreachable: fails naming the control plane', async () => {
    const { checks, answer } = await run({ url: 'http://127.0.0.1:9' });
    expect(checks).toHaveLength(1);
    expect(checks[0]).toMatchObject({
      check: 'control plane reachable',
      status: 'fail',
      code: 'MOORING_E_CP_UNREACHABLE',
    });
    expect(checks[0]!.detail).toMatch(/^control plane http:\/\/127\.0\.0\.1:9: /);
    expect(answer).toBeUndefined();
  });

  it('a wrong API key: reachable, the key refused', async () => {
    const { checks } = await run({ apiKey: 'wrong' });
    expect(line(checks, 'API key accepted')).toMatchObject({
      status: 'fail',
      code: 'MOORING_E_CP_UNAUTHORIZED',
    });
  });

  it('a listener that does not exist fails with MOORING_E_LISTENER_NOT_FOUND', async () => {
    const missing = '00000000-0000-4000-8000-000000000042';
    const { checks } = await run({ listenerId: missing });
    expect(line(checks, `listener ${missing}`)).toMatchObject({
      status: 'fail',
      code: 'MOORING_E_LISTENER_NOT_FOUND',
    });
  });

  it('a listener with a namespace outside --namespaces fails, naming it', async () => {
    const { checks } = await run({ listenerId: webListenerId });
    const r = line(checks, 'listener namespaces')!;
    expect(r.status).toBe('fail');
    expect(r.detail).toBe('the listener has web, not among --namespaces (apps)');
  });
});
