/**
 * The five calls the resource manager makes, on client-node's generic KubernetesObjectApi.
 *
 * That API serializes requests through its typed models and deserializes responses into them,
 * where some fields are renamed (`from` is `_from` on a NetworkPolicy rule, `continue` is
 * `_continue`) and timestamps are Dates. We speak the wire's JSON on both sides, so every object
 * is converted into the model shape before a call and back into wire JSON after it (checked: a
 * plain NetworkPolicy sent as-is lost its `ingress[].from`). Errors are left as they come:
 * callers map them with `kubeError` and the object id.
 */
import { type KubernetesObject, type KubernetesObjectApi, PatchStrategy } from '@kubernetes/client-node';
import { ObjectSerializer } from '@kubernetes/client-node/dist/serializer.js';
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

/** The client's model name of a kind: `V1NetworkPolicy`, `V2HorizontalPodAutoscaler`, `CoreV1Event`. */
export function modelTypeOf(apiVersion: string, kind: string): string {
  const version = apiVersion.split('/').pop() ?? apiVersion;
  const name = `${version.charAt(0).toUpperCase()}${version.slice(1)}${kind}`;
  return apiVersion === 'v1' && kind === 'Event' ? 'CoreV1Event' : name;
}

/** Wire JSON → the client's model shape (what its serializer expects to turn back into JSON). */
function toModel(obj: KubeObject): KubernetesObject {
  return ObjectSerializer.deserialize(
    structuredClone(obj),
    modelTypeOf(obj.apiVersion, obj.kind),
  ) as KubernetesObject;
}

/** The client's model → wire JSON (plain data, timestamps as strings). */
function toWire<T>(model: unknown, type: string): T {
  return JSON.parse(JSON.stringify(ObjectSerializer.serialize(model, type))) as T;
}

function fromResponse(model: unknown, fallback: KubeObject): KubeObject {
  const m = model as { apiVersion?: string; kind?: string };
  return toWire<KubeObject>(model, modelTypeOf(m.apiVersion ?? fallback.apiVersion, m.kind ?? fallback.kind));
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
      toModel(obj),
      undefined,
      opts.dryRun ? 'All' : undefined,
      opts.fieldManager,
      opts.force ?? false,
      PatchStrategy.ServerSideApply,
    );
    return fromResponse(out, obj);
  }

  /** POST: fails with 409 AlreadyExists when the object exists (never overwrites). */
  async create(obj: KubeObject, opts: WriteOptions): Promise<KubeObject> {
    const out = await this.#api.create(
      toModel(obj),
      undefined,
      opts.dryRun ? 'All' : undefined,
      opts.fieldManager,
    );
    return fromResponse(out, obj);
  }

  /** GET; undefined on 404. */
  async get(obj: KubeObject): Promise<KubeObject | undefined> {
    try {
      return fromResponse(await this.#api.read(header(obj)), obj);
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
      const model = await this.#api.list(
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
      );
      const page = toWire<{ items?: KubeObject[]; metadata?: { continue?: string } }>(
        model,
        `${modelTypeOf(apiVersion, kind)}List`,
      );
      for (const item of page.items ?? []) {
        // List items come without apiVersion/kind; put them back so ids and later calls work.
        out.push({ ...item, apiVersion, kind });
      }
      token = page.metadata?.continue || undefined;
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
