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

  it('none stored reads as none; more than MEMO_PARTS parts are refused before anything is written', async () => {
    const store = kubeRestartMemoStore(kube, OWN, 'absent');
    expect(await store.read()).toBeUndefined();
    await expect(store.write(Buffer.alloc(MEMO_PARTS * MEMO_PART_BYTES + 1))).rejects.toThrow(RangeError);
    expect(stored('absent')).toBeUndefined();
    expect(memoPartNames('absent')).toHaveLength(MEMO_PARTS);
  });
});
