/**
 * `meta.k8s.io/v1` PartialObjectMetadata answers. A client that sends
 * `Accept: application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1` gets an object's
 * metadata only, and `as=PartialObjectMetadataList` a list of them: what metadata informers ask
 * for, and what a writer that reads back only the new resourceVersion and managedFields needs. As
 * the API server does (its handlers all answer through one output negotiation), every verb that
 * answers with an object honours it: get, list and the writes. A Status stays a Status.
 */
import type { ListResult } from './reads.ts';
import type { KubeObject } from './types.ts';

const GROUP = 'meta.k8s.io';
const VERSIONS = new Set(['v1', 'v1beta1']);

/** The parameters of one media range of an Accept header, lower-cased names. */
function params(range: string): { type: string; values: Map<string, string> } {
  const [type = '', ...rest] = range.split(';');
  const values = new Map<string, string>();
  for (const p of rest) {
    const eq = p.indexOf('=');
    if (eq > 0) values.set(p.slice(0, eq).trim().toLowerCase(), p.slice(eq + 1).trim());
  }
  return { type: type.trim().toLowerCase(), values };
}

/**
 * Whether the first JSON media range of `accept` the server can serve asks for partial metadata.
 * Ranges the sandbox does not serve (another `as`, another group) are passed over, as the API
 * server passes over what it cannot encode; a plain JSON range first means the whole object.
 */
export function wantsPartialMetadata(accept: string | undefined): boolean {
  if (!accept?.includes('PartialObjectMetadata')) return false;
  for (const range of accept.split(',')) {
    const { type, values } = params(range);
    if (type !== 'application/json' && type !== '*/*' && type !== 'application/*') continue;
    const as = values.get('as');
    if (as === undefined) return false;
    if (as !== 'PartialObjectMetadata' && as !== 'PartialObjectMetadataList') continue;
    if (values.get('g') === GROUP && VERSIONS.has(values.get('v') ?? '')) return true;
  }
  return false;
}

/** An object's metadata as a PartialObjectMetadata. */
export function partialMetadata(o: KubeObject): KubeObject {
  return { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: o.metadata };
}

/** A list as a PartialObjectMetadataList (the list's own metadata: resourceVersion, continue). */
export function partialMetadataList(list: ListResult): KubeObject {
  return {
    kind: 'PartialObjectMetadataList',
    apiVersion: 'meta.k8s.io/v1',
    metadata: list.metadata,
    items: list.objects.map(partialMetadata),
  };
}

/** A write's answer in the form asked for: an object's metadata only, a Status as it is. */
export function answerAs(body: unknown, partial: boolean): unknown {
  if (!partial || body === null || typeof body !== 'object') return body;
  const obj = body as KubeObject;
  if (obj.kind === 'Status' || obj.metadata === undefined) return body;
  return partialMetadata(obj);
}
