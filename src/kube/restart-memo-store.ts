/**
 * The restart memo's ConfigMap (src/agent/restart-memo.ts): read once by each cold start, written
 * by the leader when it stops. Read, created once and replaced with a PUT, as the leader Lease is,
 * so the Role it needs is the Lease's: `create`, and `get`, `update` on its one name.
 */
import { LABELS, MANAGED_BY } from '../labels.ts';
import { httpStatusOf } from './errors.ts';
import type { KubeHttp } from './http.ts';
import { resourcePath } from './object-client.ts';

/** The ConfigMap's key holding the sealed snapshot. */
const SNAPSHOT_KEY = 'memo.sealed';

interface ConfigMap {
  binaryData?: Record<string, string>;
}

/** The agent's `RestartMemoStore` (src/agent/restart-memo-keeper.ts) over one ConfigMap. */
export function kubeRestartMemoStore(kube: KubeHttp, namespace: string, name: string) {
  const collection = resourcePath('v1', 'ConfigMap', namespace);
  const one = resourcePath('v1', 'ConfigMap', namespace, name);
  return {
    /** The stored (sealed) snapshot; undefined when there is none. */
    async read(): Promise<Buffer | undefined> {
      let cm: ConfigMap;
      try {
        cm = (await kube.request<ConfigMap>({ method: 'GET', path: one })).body;
      } catch (err) {
        if (httpStatusOf(err) === 404) return undefined;
        throw err;
      }
      const text = cm.binaryData?.[SNAPSHOT_KEY];
      if (typeof text !== 'string') return undefined;
      return Buffer.from(text, 'base64');
    },
    async write(data: Buffer, signal?: AbortSignal): Promise<void> {
      const body = {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: {
          name,
          namespace,
          labels: { [LABELS.managedBy]: MANAGED_BY },
        },
        binaryData: { [SNAPSHOT_KEY]: data.toString('base64') },
      };
      try {
        // No resourceVersion: the leader alone writes it, and the last snapshot is the one wanted.
        await kube.request({ method: 'PUT', path: one, body, ...(signal ? { signal } : {}) });
      } catch (err) {
        if (httpStatusOf(err) !== 404) throw err;
        await kube.request({ method: 'POST', path: collection, body, ...(signal ? { signal } : {}) });
      }
    },
  };
}
