/**
 * The form of an answer, as the API server negotiates it from the Accept header (all its handlers
 * answer through one negotiation): the object itself, a `meta.k8s.io` Table (kubectl's `get`
 * columns, table.ts), or PartialObjectMetadata, an object's metadata only, and
 * PartialObjectMetadataList for a list: what metadata informers ask for, and what a writer that
 * reads back only the new resourceVersion and managedFields needs. Every verb that answers with
 * an object honours it; a Status stays a Status.
 */
import type { ListResult } from './reads.ts';
import type { KubeObject } from './types.ts';

export type AnswerForm = 'Object' | 'Table' | 'PartialObjectMetadata';

const GROUP = 'meta.k8s.io';
const VERSIONS = new Set(['v1', 'v1beta1']);
const FORMS: Readonly<Record<string, AnswerForm>> = {
  Table: 'Table',
  PartialObjectMetadata: 'PartialObjectMetadata',
  PartialObjectMetadataList: 'PartialObjectMetadata',
};

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
 * The form the first JSON media range of `accept` that the sandbox serves asks for. Ranges it does
 * not serve (another type, an unknown `as`, group or version) are passed over, as the API server
 * passes over what it cannot encode; a plain JSON range means the object, and so does a header
 * with nothing served (the sandbox answers JSON rather than 406).
 */
export function answerForm(accept: string | undefined): AnswerForm {
  if (!accept?.includes('as=')) return 'Object';
  for (const range of accept.split(',')) {
    const { type, values } = params(range);
    if (type !== 'application/json' && type !== '*/*' && type !== 'application/*') continue;
    const as = values.get('as');
    if (as === undefined) return 'Object';
    const form = FORMS[as];
    if (form && values.get('g') === GROUP && VERSIONS.has(values.get('v') ?? '')) return form;
  }
  return 'Object';
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

/** An object answer in the form asked for: with PartialObjectMetadata its metadata only; a Status as it is. */
export function answerAs(body: unknown, form: AnswerForm): unknown {
  if (form !== 'PartialObjectMetadata' || body === null || typeof body !== 'object') return body;
  const obj = body as KubeObject;
  if (obj.kind === 'Status' || obj.metadata === undefined) return body;
  return partialMetadata(obj);
}
