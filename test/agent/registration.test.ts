import { describe, expect, it } from 'vitest';
import {
  checkNamespaces,
  type ListenerClient,
  registerListener,
  runHeartbeat,
} from '../../src/agent/registration.ts';
import type { ListenerRecord } from '../../src/contract/index.ts';
import { errorCode, MooringError } from '../../src/errors.ts';
import { silentLogger } from '../../src/log.ts';
import { FakeClock, flush } from './fake-clock.ts';

const ID = '11111111-1111-4111-8111-111111111111';
const T = '2026-01-01T00:00:00Z';

function listener(computeType = 'k8s'): ListenerRecord {
  return {
    id: ID,
    compute_type: computeType,
    compute_id: 'c1',
    created_at: T,
    updated_at: T,
  } as ListenerRecord;
}

function client(listeners: ListenerRecord[], patchError?: () => unknown) {
  const patches: unknown[] = [];
  const c: ListenerClient = {
    listListeners: async () => ({ items: listeners, rejected: [], unsupported: [] }),
    patchListener: async (id, body) => {
      const err = patchError?.();
      if (err) throw err;
      patches.push({ id, body });
      return listeners[0]!;
    },
  };
  return { c, patches };
}

const opts = { listenerId: ID, namespaces: ['a', 'b'], version: '1.2.3' };

async function codeOf(p: Promise<unknown>): Promise<string> {
  try {
    await p;
    return 'resolved';
  } catch (err) {
    return errorCode(err);
  }
}

describe('registerListener', () => {
  it('PATCHes version and namespaces', async () => {
    const { c, patches } = client([listener()]);
    await registerListener({ client: c, ...opts });
    expect(patches).toEqual([
      { id: ID, body: { version: '1.2.3', compute_config: { k8s_namespaces: ['a', 'b'] } } },
    ]);
  });

  it('refuses a missing listener and a non-k8s one, without writing', async () => {
    const missing = client([]);
    expect(await codeOf(registerListener({ client: missing.c, ...opts }))).toBe(
      'MOORING_E_LISTENER_NOT_FOUND',
    );
    const other = client([listener('nomad')]);
    expect(await codeOf(registerListener({ client: other.c, ...opts }))).toBe('MOORING_E_LISTENER_NOT_K8S');
    expect([...missing.patches, ...other.patches]).toEqual([]);
  });

  it('maps a 404 on PATCH to MOORING_E_LISTENER_NOT_FOUND', async () => {
    const { c } = client([listener()], () => new MooringError('MOORING_E_CP_NOT_FOUND'));
    expect(await codeOf(registerListener({ client: c, ...opts }))).toBe('MOORING_E_LISTENER_NOT_FOUND');
  });
});

describe('checkNamespaces', () => {
  it('names every missing namespace in one terminal error', async () => {
    const read = async (ns: string) => {
      if (ns !== 'a') throw new MooringError('MOORING_E_KUBE_NOT_FOUND');
    };
    await expect(checkNamespaces(read, ['a', 'b', 'c'])).rejects.toThrow('namespaces b, c not found');
    await expect(checkNamespaces(read, ['a'])).resolves.toBeUndefined();
  });

  it('passes other errors through (retryable)', async () => {
    const read = async () => {
      throw new MooringError('MOORING_E_KUBE_UNREACHABLE');
    };
    expect(await codeOf(checkNamespaces(read, ['a']))).toBe('MOORING_E_KUBE_UNREACHABLE');
  });
});

describe('runHeartbeat', () => {
  it('beats every interval and keeps going after failures', async () => {
    const clock = new FakeClock();
    let failing = false;
    const { c, patches } = client([listener()], () =>
      failing ? new MooringError('MOORING_E_CP_UNREACHABLE') : undefined,
    );
    const beats: string[] = [];
    const controller = new AbortController();
    const done = runHeartbeat(
      { client: c, ...opts, intervalMs: 60_000, clock, logger: silentLogger(), onBeat: (r) => beats.push(r) },
      controller.signal,
    );
    await clock.advance(60_000);
    expect(patches).toHaveLength(1);
    failing = true;
    await clock.advance(60_000 + 5_000 + 10_000);
    expect(beats).toEqual(['success', 'failure', 'failure', 'failure']);
    failing = false;
    await clock.advance(20_000);
    expect(beats.at(-1)).toBe('success');
    controller.abort();
    await flush();
    await done;
  });
});
