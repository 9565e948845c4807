/**
 * The restart memo's ConfigMaps (src/agent/restart-memo.ts): read once by each cold start, written
 * by the leader when it stops and on the memo schedule. Read, created once and replaced with a
 * PUT, as the leader Lease is, so the Role it needs is the Lease's: `create`, and `get`, `update`
 * on its names. A ConfigMap holds at most 1 MiB, and the snapshot of 10,000 deployments is about
 * three times that: the sealed bytes are cut in parts of MEMO_PART_BYTES, the first in the
 * ConfigMap `name` (which says how many there are, and in which of two sets of names the others
 * are), the others in `memoPartName(name, i, slot)`. A save writes its other parts in the set the
 * stored first part does not name, then the first part: one cut short (its time ran out) leaves
 * the stored snapshot whole, where new parts beside the old first one made one that did not open.
 */
import { LABELS, MANAGED_BY } from '../labels.ts';
import { httpStatusOf } from './errors.ts';
import type { KubeHttp } from './http.ts';
import { resourcePath } from './object-client.ts';

/** The ConfigMap's key holding the sealed snapshot (or its part). */
const SNAPSHOT_KEY = 'memo.sealed';
/** The first ConfigMap's key saying how many parts the snapshot has (absent: one). */
const PARTS_KEY = 'parts';
/** The first ConfigMap's key saying which set of names holds the other parts (absent: 0). */
const SLOT_KEY = 'slot';

/** A ConfigMap's data is at most 1 MiB; this leaves room for the rest of the object. */
export const MEMO_PART_BYTES = 900 * 1024;
/** The most parts a snapshot is cut in: the chart grants `get`, `update` on each name. */
export const MEMO_PARTS = 6;

/**
 * The ConfigMap of part `i` (0-based) of the memo `name`: `name` itself, then `name-part2`... in
 * set 0 and `name-alt-part2`... in set 1 (`slot`).
 */
export function memoPartName(name: string, i: number, slot: Slot = 0): string {
  if (i === 0) return name;
  return slot === 0 ? `${name}-part${i + 1}` : `${name}-alt-part${i + 1}`;
}

/** Every ConfigMap name the memo `name` may use (what RBAC grants and the start checks). */
export function memoPartNames(name: string): string[] {
  const others = (slot: Slot) =>
    Array.from({ length: MEMO_PARTS - 1 }, (_, i) => memoPartName(name, i + 1, slot));
  return [name, ...others(0), ...others(1)];
}

/** Which set of names holds a snapshot's parts after the first. */
type Slot = 0 | 1;

function slotOf(first: ConfigMap | undefined): Slot {
  return first?.data?.[SLOT_KEY] === '1' ? 1 : 0;
}

/** The set a save writes its other parts in: the one the stored first part does not name (none stored: 0). */
function freeSlot(first: ConfigMap | undefined): Slot {
  return first === undefined || slotOf(first) === 1 ? 0 : 1;
}

interface ConfigMap {
  data?: Record<string, string>;
  binaryData?: Record<string, string>;
}

/** The agent's `RestartMemoStore` (src/agent/restart-memo-keeper.ts) over the memo's ConfigMaps. */
export function kubeRestartMemoStore(kube: KubeHttp, namespace: string, name: string) {
  const collection = resourcePath('v1', 'ConfigMap', namespace);
  const pathOf = (part: number, slot: Slot) =>
    resourcePath('v1', 'ConfigMap', namespace, memoPartName(name, part, slot));

  async function readPart(part: number, slot: Slot = 0): Promise<ConfigMap | undefined> {
    try {
      return (await kube.request<ConfigMap>({ method: 'GET', path: pathOf(part, slot) })).body;
    } catch (err) {
      if (httpStatusOf(err) === 404) return undefined;
      throw err;
    }
  }

  async function writePart(part: number, chunk: Buffer, parts: number, slot: Slot, signal?: AbortSignal) {
    const body = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: {
        name: memoPartName(name, part, slot),
        namespace,
        labels: { [LABELS.managedBy]: MANAGED_BY },
      },
      ...(part === 0 ? { data: { [PARTS_KEY]: String(parts), [SLOT_KEY]: String(slot) } } : {}),
      binaryData: { [SNAPSHOT_KEY]: chunk.toString('base64') },
    };
    const sig = signal ? { signal } : {};
    try {
      // No resourceVersion: the leader alone writes it, and the last snapshot is the one wanted.
      await kube.request({ method: 'PUT', path: pathOf(part, slot), body, ...sig });
    } catch (err) {
      if (httpStatusOf(err) !== 404) throw err;
      await kube.request({ method: 'POST', path: collection, body, ...sig });
    }
  }

  return {
    /** Every part full. */
    maxBytes: MEMO_PARTS * MEMO_PART_BYTES,
    /**
     * The stored (sealed) snapshot, its parts put together; undefined when there is none. A part
     * missing or left from another snapshot only makes bytes that do not open (the seal checks them).
     */
    async read(): Promise<Buffer | undefined> {
      const first = await readPart(0);
      const slot = slotOf(first);
      const text = first?.binaryData?.[SNAPSHOT_KEY];
      if (typeof text !== 'string') return undefined;
      const parts = Math.min(MEMO_PARTS, Math.max(1, Number(first?.data?.[PARTS_KEY] ?? 1) || 1));
      const rest = await Promise.all(
        Array.from(
          { length: parts - 1 },
          async (_, i) => (await readPart(i + 1, slot))?.binaryData?.[SNAPSHOT_KEY] ?? '',
        ),
      );
      return Buffer.concat([text, ...rest].map((t) => Buffer.from(t, 'base64')));
    },
    /**
     * Writes `data` in parts, the others in the set the stored first part does not name, then the
     * first, which names them: until it is written, the stored snapshot is the one before.
     */
    async write(data: Buffer, signal?: AbortSignal): Promise<void> {
      const parts = Math.max(1, Math.ceil(data.length / MEMO_PART_BYTES));
      if (parts > MEMO_PARTS)
        throw new RangeError(`restart memo of ${data.length} bytes: more than ${MEMO_PARTS} parts`);
      const chunk = (i: number) => data.subarray(i * MEMO_PART_BYTES, (i + 1) * MEMO_PART_BYTES);
      // Read, not remembered: another leader may have saved since this process last did.
      const slot: Slot = parts > 1 ? freeSlot(await readPart(0)) : 0;
      for (let i = 1; i < parts; i++) await writePart(i, chunk(i), parts, slot, signal);
      await writePart(0, chunk(0), parts, slot, signal);
    },
  };
}
