import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { ObjectClient } from '../../src/kube/object-client.ts';
import type { WatchEvent } from '../../src/kube/watch-events.ts';
import { scopeKey, type WatchClient, WatchCache } from '../../src/kube/watch-cache.ts';
import { kindInfo, LISTED_KINDS } from '../../src/objects/kinds.ts';
import type { KubeObject } from '../../src/objects/kube-object.ts';
import { type KubeApi, type RequestRecord, startKubeApi } from '../../src/sandbox/server.ts';
import { basicSet, envSecret, LISTENER, service } from './fixtures.ts';
import { kubeOf, managerFor, OtherManager } from './sandbox.ts';

const NS = 'watched';
const SERVICE = kindInfo('Service')!;
const FAST = { baseMs: 5, maxMs: 5, jitter: 0 };

const names = (cache: WatchCache, kind: string): string[] =>
  (cache.inventory()?.objects ?? [])
    .filter((o) => o.kind === kind)
    .map((o) => o.metadata.name ?? '')
    .sort();

const entryOf = (cache: WatchCache, kind: string, name: string): KubeObject | undefined =>
  cache.inventory()?.objects.find((o) => o.kind === kind && o.metadata.name === name);

describe('WatchCache against the sandbox: one list, then events keep the entries current', () => {
  let api: KubeApi;
  let cache: WatchCache;
  let watchRequests: RequestRecord[] = [];

  beforeAll(async () => {
    api = await startKubeApi({ namespaces: [NS, 'elsewhere'], watchBookmarkIntervalMs: 50 });
    await managerFor(api).applyAll(basicSet(NS));
    cache = new WatchCache({
      client: new ObjectClient(kubeOf(api)),
      namespaces: [NS],
      listenerId: LISTENER,
      timeoutSeconds: 60,
      backoff: FAST,
    });
    cache.start();
    await vi.waitFor(() => expect(cache.synced).toBe(true), { timeout: 10_000 });
    await vi.waitFor(() =>
      expect(api.requests().filter((r) => r.verb === 'watch')).toHaveLength(LISTED_KINDS.length),
    );
    watchRequests = api.requests().filter((r) => r.verb === 'watch');
  });
  afterAll(async () => {
    cache.stop();
    await api.close();
  });

  it('holds the listed objects as slim entries, and lists nothing more once synced', async () => {
    expect(names(cache, 'Service')).toEqual(['app']);
    expect(names(cache, 'Secret')).toEqual(['app-env', 'app-postgres-credentials']);
    // Slim: a Secret's entry carries no data.
    expect(entryOf(cache, 'Secret', 'app-env')).not.toHaveProperty('data');
    api.clearRequests();
    await managerFor(api).applyAll([service(NS, 'second')]);
    await vi.waitFor(() => expect(names(cache, 'Service')).toEqual(['app', 'second']));
    // The apply reads the new object (ownership); the cache itself lists nothing.
    expect(api.requests().filter((r) => r.verb === 'list')).toEqual([]);
  });

  it('MODIFIED replaces the entry, DELETED removes it', async () => {
    await new OtherManager(api).mergePatch(
      {
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name: 'app', namespace: NS, annotations: { x: 'y' } },
      },
      'someone-else',
    );
    const live = api.getObject('v1', 'Service', NS, 'app');
    await vi.waitFor(() =>
      expect(entryOf(cache, 'Service', 'app')?.metadata.resourceVersion).toBe(
        live?.metadata?.resourceVersion,
      ),
    );
    await new ObjectClient(kubeOf(api)).delete(service(NS, 'second'));
    await vi.waitFor(() => expect(names(cache, 'Service')).toEqual(['app']));
  });

  it('an object that stops matching the label selector leaves the entries (label-selector watch)', async () => {
    await managerFor(api).applyAll([envSecret(NS, 'relabelled')]);
    await vi.waitFor(() => expect(names(cache, 'Secret')).toContain('relabelled'));
    await new OtherManager(api).mergePatch(
      {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: 'relabelled', namespace: NS, labels: { 'mooring.dev/listener-id': 'another' } },
      },
      'someone-else',
    );
    await vi.waitFor(() => expect(names(cache, 'Secret')).not.toContain('relabelled'));
  });

  it('bookmarks move the resourceVersion without any change of the kind watched', async () => {
    const before = Number(cache.versionOf('Service', NS));
    // A write elsewhere moves the server's resourceVersion; only a bookmark can tell the watch.
    await managerFor(api).applyAll([service('elsewhere', 'other')]);
    const moved = Number(api.getObject('v1', 'Service', 'elsewhere', 'other')?.metadata?.resourceVersion);
    expect(moved).toBeGreaterThan(before);
    await vi.waitFor(() => expect(Number(cache.versionOf('Service', NS))).toBeGreaterThanOrEqual(moved));
    expect(names(cache, 'Service')).toEqual(['app']);
  });

  it('watches each listed kind once, logged with the verb watch', () => {
    expect(watchRequests.map((r) => r.resource).sort()).toEqual(LISTED_KINDS.map((k) => k.plural).sort());
    expect(watchRequests.every((r) => r.namespace === NS)).toBe(true);
  });
});

describe('WatchCache.stop', () => {
  it('ends every open watch, so the client closes at once (a shutdown does not hang)', async () => {
    const api = await startKubeApi({ namespaces: [NS] });
    try {
      const kube = kubeOf(api);
      const cache = new WatchCache({
        client: new ObjectClient(kube),
        namespaces: [NS],
        listenerId: LISTENER,
        timeoutSeconds: 600,
      });
      cache.start();
      await vi.waitFor(() =>
        expect(api.requests().filter((r) => r.verb === 'watch')).toHaveLength(LISTED_KINDS.length),
      );
      cache.stop();
      const closed = await Promise.race([
        kube.close().then(() => 'closed'),
        new Promise((resolve) => setTimeout(() => resolve('still open'), 5000)),
      ]);
      expect(closed).toBe('closed');
      expect(cache.synced).toBe(false);
    } finally {
      await api.close();
    }
  });
});

/** A client whose lists and watches the test drives: each watch waits for the test to end it. */
function scriptedClient(items: () => KubeObject[]) {
  let version = 10;
  const lists: string[] = [];
  const watches: Array<{
    kind: string;
    from: string;
    send: (e: WatchEvent) => void;
    end: () => void;
    fail: (err: unknown) => void;
  }> = [];
  const client: WatchClient = {
    list: async (_apiVersion, kind, _namespace, _selector, each = (i) => i, opts = {}) => {
      lists.push(kind);
      version += 1;
      opts.onVersion?.(String(version));
      return items()
        .filter((o) => o.kind === kind)
        .flatMap((o) => each(structuredClone(o)) ?? []);
    },
    watch: (_apiVersion, kind, _namespace, _selector, from, onEvent) =>
      new Promise<void>((resolve, reject) => {
        watches.push({
          kind,
          from,
          send: (e) => {
            try {
              onEvent(e);
            } catch (err) {
              reject(err);
            }
          },
          end: resolve,
          fail: reject,
        });
      }),
  };
  const open = (kind: string) => watches.filter((w) => w.kind === kind).at(-1)!;
  return { client, lists, watches, open };
}

function serviceAt(name: string, version: number): KubeObject {
  const s = service(NS, name);
  s.metadata = { ...s.metadata, uid: `uid-${name}`, resourceVersion: String(version) };
  return s;
}

describe('WatchCache: expiry and broken streams', () => {
  let cache: WatchCache | undefined;
  afterEach(() => cache?.stop());

  it('410 Gone: the scope is unsynced, lists again, and watches from the new list', async () => {
    const live = [serviceAt('a', 5)];
    const { client, lists, open } = scriptedClient(() => live);
    cache = new WatchCache({
      client,
      namespaces: [NS],
      listenerId: LISTENER,
      kinds: [SERVICE],
      backoff: FAST,
    });
    cache.start();
    await vi.waitFor(() => expect(cache?.synced).toBe(true));
    expect(lists).toEqual(['Service']);
    const first = open('Service');
    live.push(serviceAt('b', 12));
    first.send({ type: 'ERROR', object: { apiVersion: 'v1', kind: 'Status', metadata: {}, code: 410 } });
    await vi.waitFor(() => expect(lists).toEqual(['Service', 'Service']));
    await vi.waitFor(() => expect(cache?.synced).toBe(true));
    expect(names(cache, 'Service')).toEqual(['a', 'b']);
    expect(cache.stats.relists).toBe(1);
    expect(open('Service').from).toBe(cache.versionOf('Service', NS));
  });

  it('a stream broken mid-way unsyncs the cache at once (so cycles list) until its relist', async () => {
    const live = [serviceAt('a', 5)];
    const { client, lists, open } = scriptedClient(() => live);
    cache = new WatchCache({
      client,
      namespaces: [NS],
      listenerId: LISTENER,
      kinds: [SERVICE],
      backoff: { baseMs: 200, maxMs: 200, jitter: 0 },
    });
    cache.start();
    await vi.waitFor(() => expect(cache?.synced).toBe(true));
    open('Service').send({ type: 'ADDED', object: serviceAt('b', 13) });
    expect(names(cache, 'Service')).toEqual(['a', 'b']);
    open('Service').fail(new Error('socket hang up'));
    await vi.waitFor(() => expect(cache?.synced).toBe(false));
    expect(cache.inventory()).toBeUndefined();
    await vi.waitFor(() => expect(cache?.synced).toBe(true), { timeout: 2000 });
    expect(lists).toHaveLength(2);
    // The relist is the truth: 'b' was only ever an event, not in the list.
    expect(names(cache, 'Service')).toEqual(['a']);
  });

  it('a watch the server ends is opened again from the latest version, with no list', async () => {
    const { client, lists, open, watches } = scriptedClient(() => [serviceAt('a', 5)]);
    cache = new WatchCache({
      client,
      namespaces: [NS],
      listenerId: LISTENER,
      kinds: [SERVICE],
      backoff: FAST,
    });
    cache.start();
    await vi.waitFor(() => expect(cache?.synced).toBe(true));
    open('Service').send({
      type: 'BOOKMARK',
      object: { apiVersion: 'v1', kind: 'Service', metadata: { resourceVersion: '40' } },
    });
    open('Service').end();
    await vi.waitFor(() => expect(watches).toHaveLength(2));
    expect(open('Service').from).toBe('40');
    expect(lists).toEqual(['Service']);
    expect(cache.synced).toBe(true);
  });

  it('a seed (the first listing) stands for the list: its entries are kept, the watch starts from its version', async () => {
    const { client, lists, open } = scriptedClient(() => [serviceAt('a', 5)]);
    cache = new WatchCache({
      client,
      namespaces: [NS],
      listenerId: LISTENER,
      kinds: [SERVICE],
      backoff: FAST,
    });
    const seeded = serviceAt('seeded', 3);
    cache.start({
      entries: new Map([[`Service/${NS}`, new Map([['seeded', seeded]])]]),
      versions: new Map([[scopeKey('Service', NS), '7']]),
    });
    expect(cache.synced).toBe(true);
    await vi.waitFor(() => expect(open('Service')?.from).toBe('7'));
    expect(lists).toEqual([]);
    expect(entryOf(cache, 'Service', 'seeded')).toBe(seeded);
  });

  it('an unchanged object keeps its entry across events and relists', async () => {
    const live = [serviceAt('a', 5)];
    const { client, open } = scriptedClient(() => live);
    cache = new WatchCache({
      client,
      namespaces: [NS],
      listenerId: LISTENER,
      kinds: [SERVICE],
      backoff: FAST,
    });
    cache.start();
    await vi.waitFor(() => expect(cache?.synced).toBe(true));
    const entry = entryOf(cache, 'Service', 'a');
    open('Service').send({ type: 'MODIFIED', object: serviceAt('a', 5) });
    expect(entryOf(cache, 'Service', 'a')).toBe(entry);
    open('Service').send({ type: 'MODIFIED', object: serviceAt('a', 6) });
    expect(entryOf(cache, 'Service', 'a')).not.toBe(entry);
    expect(entryOf(cache, 'Service', 'a')?.metadata.resourceVersion).toBe('6');
  });
});
