import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKubeClient } from '../../src/kube/clients.ts';
import type { KubeHttp } from '../../src/kube/http.ts';
import {
  kubeRestartMemoStore,
  MEMO_PART_BYTES,
  MEMO_PARTS,
  memoPartName,
  memoPartNames,
} from '../../src/kube/restart-memo-store.ts';
import { type KubeApi, startKubeApi } from '../../src/sandbox/server.ts';

const OWN = 'mooring-system';
let api: KubeApi;
let kube: KubeHttp;

beforeAll(async () => {
  api = await startKubeApi({ namespaces: [OWN] });
  kube = createKubeClient(api.kubeconfig);
});

afterAll(async () => {
  await kube?.close();
  await api?.close();
});

const stored = (name: string) =>
  api.getObject('v1', 'ConfigMap', OWN, name) as { binaryData?: Record<string, string> } | undefined;
const partBytes = (name: string) =>
  Buffer.from(stored(name)?.binaryData?.['memo.sealed'] ?? '', 'base64').length;

describe('the restart memo store (ConfigMaps in parts)', () => {
  it('a snapshot past one ConfigMap is kept in parts of at most MEMO_PART_BYTES and read back whole', async () => {
    const store = kubeRestartMemoStore(kube, OWN, 'memo');
    const data = randomBytes(Math.floor(MEMO_PART_BYTES * 2.5));
    await store.write(data);
    expect([0, 1, 2].map((i) => partBytes(memoPartName('memo', i)))).toEqual([
      MEMO_PART_BYTES,
      MEMO_PART_BYTES,
      data.length - 2 * MEMO_PART_BYTES,
    ]);
    expect(stored(memoPartName('memo', 3))).toBeUndefined();
    expect((await store.read())?.equals(data)).toBe(true);

    // A smaller one after it: the first ConfigMap says how many parts count, the rest are ignored.
    const small = randomBytes(1000);
    await store.write(small);
    expect((await store.read())?.equals(small)).toBe(true);
  });

  it('a part lost reads as other bytes (which do not open), never as an error or a shorter snapshot', async () => {
    const store = kubeRestartMemoStore(kube, OWN, 'lossy');
    const data = randomBytes(MEMO_PART_BYTES + 10);
    await store.write(data);
    await kube.request({ method: 'DELETE', path: `/api/v1/namespaces/${OWN}/configmaps/lossy-part2` });
    const read = await store.read();
    expect(read?.equals(data)).toBe(false);
  });

  it('a save cut short before its first part leaves the stored snapshot whole, and the next save goes through', async () => {
    const before = randomBytes(Math.floor(MEMO_PART_BYTES * 2.5));
    await kubeRestartMemoStore(kube, OWN, 'torn').write(before);
    // The first part is written last; this save's time runs out just before it.
    const cut = {
      request: (req: { method: string; path: string }) =>
        req.method === 'PUT' && req.path.endsWith('/configmaps/torn')
          ? Promise.reject(new Error('the operation was aborted'))
          : kube.request(req as Parameters<KubeHttp['request']>[0]),
    } as unknown as KubeHttp;
    const store = kubeRestartMemoStore(cut, OWN, 'torn');
    const after = randomBytes(Math.floor(MEMO_PART_BYTES * 1.5));
    await expect(store.write(after)).rejects.toThrow('aborted');
    expect((await kubeRestartMemoStore(kube, OWN, 'torn').read())?.equals(before)).toBe(true);
    const again = kubeRestartMemoStore(kube, OWN, 'torn');
    await again.write(after);
    expect((await again.read())?.equals(after)).toBe(true);
    const third = randomBytes(Math.floor(MEMO_PART_BYTES * 3.5));
    await again.write(third);
    expect((await kubeRestartMemoStore(kube, OWN, 'torn').read())?.equals(third)).toBe(true);
  });

  it("a save cut short after another leader's save leaves that one whole (the free set is read, not remembered)", async () => {
    // This process's client; from `cutting` on, its time runs out just before a first part.
    let cutting = false;
    const client = {
      request: (req: { method: string; path: string }) =>
        cutting && req.method === 'PUT' && req.path.endsWith('/configmaps/shared')
          ? Promise.reject(new Error('the operation was aborted'))
          : kube.request(req as Parameters<KubeHttp['request']>[0]),
    } as unknown as KubeHttp;
    const mine = kubeRestartMemoStore(client, OWN, 'shared');
    await mine.write(randomBytes(Math.floor(MEMO_PART_BYTES * 1.5)));
    // Another leader (after a failover) saves since: its parts go in the other set of names.
    const theirs = randomBytes(Math.floor(MEMO_PART_BYTES * 1.5));
    await kubeRestartMemoStore(kube, OWN, 'shared').write(theirs);
    cutting = true;
    await expect(mine.write(randomBytes(Math.floor(MEMO_PART_BYTES * 1.5)))).rejects.toThrow('aborted');
    expect((await kubeRestartMemoStore(kube, OWN, 'shared').read())?.equals(theirs)).toBe(true);
  });

  it('none stored reads as none; more than MEMO_PARTS parts are refused before anything is written', async () => {
    const store = kubeRestartMemoStore(kube, OWN, 'absent');
    expect(await store.read()).toBeUndefined();
    await expect(store.write(Buffer.alloc(MEMO_PARTS * MEMO_PART_BYTES + 1))).rejects.toThrow(RangeError);
    expect(stored('absent')).toBeUndefined();
    // Each part after the first in two sets of names: a save writes the set the stored one does not use.
    expect(memoPartNames('absent')).toHaveLength(2 * MEMO_PARTS - 1);
  });
});
