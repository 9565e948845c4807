/** PATCH with a JSON patch (RFC 6902), a JSON merge patch (RFC 7396) or a strategic merge patch. */
import fastJsonPatch from 'fast-json-patch';
import { strategicMergePatch } from './apply/index.ts';
import type { Cluster } from './cluster.ts';
import { clone } from './equal.ts';
import { handleUnknownFields } from './fields.ts';
import type { ResourceType } from './resources.ts';
import { ApiError, badRequest, conflict, STALE } from './status.ts';
import { applyFailure, asObject, parseJson, typed, type WriteResult } from './write-common.ts';
import type { WriteOptions } from './write-options.ts';
import { finish, getLive } from './writes.ts';

/** RFC 7396 JSON merge patch. */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (patch === null || typeof patch !== 'object' || Array.isArray(patch)) return patch;
  const out: Record<string, unknown> =
    target !== null && typeof target === 'object' && !Array.isArray(target)
      ? { ...(target as Record<string, unknown>) }
      : {};
  for (const [key, value] of Object.entries(patch as Record<string, unknown>)) {
    if (value === null) delete out[key];
    else out[key] = mergePatch(out[key], value);
  }
  return out;
}

/** PATCH with a JSON, merge or strategic merge patch (apply goes to `apply`). */
export function patch(
  cluster: Cluster,
  type: ResourceType,
  namespace: string | undefined,
  name: string,
  contentType: string,
  text: string,
  options: WriteOptions,
  subresource?: string,
): WriteResult {
  const live = getLive(cluster, type, namespace, name);
  const base = clone(live);
  let patched: unknown;
  if (contentType === 'application/json-patch+json') {
    const ops = parseJson(text);
    if (!Array.isArray(ops))
      throw badRequest('json: cannot unmarshal object into Go value of type jsonpatch.Patch');
    try {
      patched = fastJsonPatch.applyPatch(base, ops as fastJsonPatch.Operation[], true, false).newDocument;
    } catch (error) {
      throw new ApiError(
        422,
        'Invalid',
        `the server rejected our request due to an error in our request: ${(error as Error).message.split('\n')[0]}`,
      );
    }
  } else if (contentType === 'application/merge-patch+json') {
    patched = mergePatch(base, parseJson(text));
  } else {
    const body = parseJson(text);
    if (body === null || typeof body !== 'object' || Array.isArray(body))
      throw badRequest('strategic merge patch must be a JSON object');
    try {
      patched = strategicMergePatch(base, body as Record<string, unknown>);
    } catch (error) {
      throw applyFailure(error);
    }
  }
  const next = typed(type, asObject(patched, type.kind));
  handleUnknownFields(type, next, options, 'decode');
  const rv = next.metadata.resourceVersion;
  if (rv !== undefined && rv !== live.metadata.resourceVersion) throw conflict(type, name, STALE);
  return finish(cluster, type, live, next, options, subresource ? { subresource } : {});
}
