/**
 * The five calls the resource manager makes, on client-node's generic KubernetesObjectApi, with
 * responses turned into plain JSON (the client deserializes into model classes with Date fields).
 * Errors are left as they come: callers map them with `kubeError` and the object id.
 */
import { type KubernetesObject, type KubernetesObjectApi, PatchStrategy } from '@kubernetes/client-node';
import { httpStatusOf } from './errors.ts';
import type { KubeObject } from './types.ts';

export interface WriteOptions {
  fieldManager: string;
  dryRun?: boolean;
  force?: boolean;
}

export interface DeleteOptions {
  dryRun?: boolean;
  propagationPolicy?: 'Background' | 'Foreground' | 'Orphan';
}

/** Page size for list calls: big enough that a namespace is one page in practice. */
export const LIST_PAGE_SIZE = 500;

function plain<T>(value: unknown): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

function header(obj: KubeObject): KubernetesObject & { metadata: { name: string; namespace?: string } } {
  const metadata: { name: string; namespace?: string } = { name: obj.metadata.name ?? '' };
  if (obj.metadata.namespace) metadata.namespace = obj.metadata.namespace;
  return { apiVersion: obj.apiVersion, kind: obj.kind, metadata };
}

export class ObjectClient {
  readonly #api: KubernetesObjectApi;

  constructor(api: KubernetesObjectApi) {
    this.#api = api;
  }

  /** Server-side apply (`application/apply-patch+yaml`). */
  async apply(obj: KubeObject, opts: WriteOptions): Promise<KubeObject> {
    const out = await this.#api.patch(
      structuredClone(obj) as KubernetesObject,
      undefined,
      opts.dryRun ? 'All' : undefined,
      opts.fieldManager,
      opts.force ?? false,
      PatchStrategy.ServerSideApply,
    );
    return plain<KubeObject>(out);
  }

  /** POST: fails with 409 AlreadyExists when the object exists (never overwrites). */
  async create(obj: KubeObject, opts: WriteOptions): Promise<KubeObject> {
    const out = await this.#api.create(
      structuredClone(obj) as KubernetesObject,
      undefined,
      opts.dryRun ? 'All' : undefined,
      opts.fieldManager,
    );
    return plain<KubeObject>(out);
  }

  /** GET; undefined on 404. */
  async get(obj: KubeObject): Promise<KubeObject | undefined> {
    try {
      return plain<KubeObject>(await this.#api.read(header(obj)));
    } catch (err) {
      if (httpStatusOf(err) === 404) return undefined;
      throw err;
    }
  }

  /** Every object of a kind in a namespace matching a label selector, over all pages. */
  async list(
    apiVersion: string,
    kind: string,
    namespace: string,
    labelSelector: string,
  ): Promise<KubeObject[]> {
    const out: KubeObject[] = [];
    let token: string | undefined;
    do {
      const page = plain<{ items?: KubeObject[]; metadata?: { continue?: string; _continue?: string } }>(
        await this.#api.list(
          apiVersion,
          kind,
          namespace,
          undefined,
          undefined,
          undefined,
          undefined,
          labelSelector,
          LIST_PAGE_SIZE,
          token,
        ),
      );
      for (const item of page.items ?? []) {
        // List items come without apiVersion/kind; put them back so ids and later calls work.
        out.push({ ...item, apiVersion, kind });
      }
      token = page.metadata?.continue ?? page.metadata?._continue ?? undefined;
    } while (token);
    return out;
  }

  /** DELETE; 'absent' on 404 (already gone counts as deleted). */
  async delete(obj: KubeObject, opts: DeleteOptions = {}): Promise<'deleted' | 'absent'> {
    try {
      await this.#api.delete(
        header(obj),
        undefined,
        opts.dryRun ? 'All' : undefined,
        undefined,
        undefined,
        opts.propagationPolicy ?? 'Background',
      );
      return 'deleted';
    } catch (err) {
      if (httpStatusOf(err) === 404) return 'absent';
      throw err;
    }
  }
}
