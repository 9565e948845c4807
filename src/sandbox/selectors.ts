/**
 * Label selectors (`=`, `==`, `!=`, `in`, `notin`, exists, `!`) and field selectors
 * (`metadata.name`, `metadata.namespace` and each kind's indexed fields) as the API server parses
 * them from query strings.
 */
import { badRequest } from './status.ts';
import type { KubeObject } from './types.ts';

export type Requirement =
  | { key: string; op: 'in' | 'notin'; values: string[] }
  | { key: string; op: 'exists' | 'notexists' };

/** A parsed selector: every requirement must hold. An empty list matches everything. */
export type Selector = Requirement[];

/** Splits on commas that are not inside parentheses. */
function splitTerms(text: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '(') depth++;
    else if (c === ')') depth--;
    else if (c === ',' && depth === 0) {
      out.push(text.slice(start, i));
      start = i + 1;
    }
  }
  out.push(text.slice(start));
  return out.map((s) => s.trim()).filter((s) => s !== '');
}

const KEY = /^([a-z0-9A-Z]([-a-z0-9A-Z_.]*[a-z0-9A-Z])?\/)?[a-z0-9A-Z]([-a-z0-9A-Z_.]*[a-z0-9A-Z])?$/;

function checkKey(key: string, raw: string): string {
  if (!KEY.test(key)) throw badRequest(`unable to parse requirement: invalid label key "${key}" in "${raw}"`);
  return key;
}

/** Parses `labelSelector`; throws a 400 BadRequest Status on malformed input. */
export function parseLabelSelector(text: string | null | undefined): Selector {
  if (!text) return [];
  const reqs: Selector = [];
  for (const term of splitTerms(text)) {
    const set = /^(\S+?)\s+(in|notin)\s*\(([^)]*)\)$/.exec(term) as [string, string, string, string] | null;
    if (set) {
      const values = set[3]
        .split(',')
        .map((v) => v.trim())
        .filter((v) => v !== '');
      reqs.push({ key: checkKey(set[1], term), op: set[2] as 'in' | 'notin', values });
      continue;
    }
    const cmp = /^([^=!\s]+)\s*(==|=|!=)\s*(\S*)$/.exec(term) as [string, string, string, string] | null;
    if (cmp) {
      const key = checkKey(cmp[1], term);
      reqs.push({ key, op: cmp[2] === '!=' ? 'notin' : 'in', values: [cmp[3]] });
      continue;
    }
    if (term.startsWith('!')) {
      reqs.push({ key: checkKey(term.slice(1).trim(), term), op: 'notexists' });
      continue;
    }
    reqs.push({ key: checkKey(term, term), op: 'exists' });
  }
  return reqs;
}

/** True when `labels` satisfy every requirement. */
export function matchesLabels(selector: Selector, labels: Record<string, string> | undefined): boolean {
  for (const req of selector) {
    const has = labels !== undefined && Object.hasOwn(labels, req.key);
    switch (req.op) {
      case 'exists':
        if (!has) return false;
        break;
      case 'notexists':
        if (has) return false;
        break;
      case 'in':
        if (!has || !req.values.includes(labels[req.key] as string)) return false;
        break;
      case 'notin':
        if (has && req.values.includes(labels[req.key] as string)) return false;
        break;
    }
  }
  return true;
}

export interface FieldRequirement {
  field: string;
  equal: boolean;
  value: string;
}

const COMMON = ['metadata.name', 'metadata.namespace'];

/** Field selectors each kind supports beyond metadata.name/namespace (its registry's field set). */
const KIND_FIELDS: Record<string, string[]> = {
  Event: [
    'involvedObject.kind',
    'involvedObject.namespace',
    'involvedObject.name',
    'involvedObject.uid',
    'involvedObject.apiVersion',
    'involvedObject.resourceVersion',
    'involvedObject.fieldPath',
    'reason',
    'reportingComponent',
    'source',
    'type',
  ],
  // The pod registry's selectable fields (podutil's ToSelectableFields).
  Pod: [
    'spec.nodeName',
    'spec.restartPolicy',
    'spec.schedulerName',
    'spec.serviceAccountName',
    'spec.hostNetwork',
    'status.phase',
    'status.podIP',
    'status.nominatedNodeName',
  ],
  ReplicaSet: ['status.replicas'],
  Secret: ['type'],
  Namespace: ['status.phase'],
  StatefulSet: ['status.successful'],
};

/** Parses `fieldSelector`; fields the kind does not index are a 400, as on a real server. */
export function parseFieldSelector(text: string | null | undefined, kind: string): FieldRequirement[] {
  if (!text) return [];
  const allowed = [...COMMON, ...(KIND_FIELDS[kind] ?? [])];
  const out: FieldRequirement[] = [];
  for (const term of splitTerms(text)) {
    const m = /^([^=!\s]+)\s*(==|=|!=)\s*(\S*)$/.exec(term) as [string, string, string, string] | null;
    if (!m) throw badRequest(`invalid selector: '${text}'; can't understand '${term}'`);
    if (!allowed.includes(m[1])) {
      throw badRequest(`field label not supported: ${m[1]}`, [
        {
          reason: 'FieldValueNotSupported',
          message: `"${m[1]}" is not a known field selector: only ${allowed.map((f) => `"${f}"`).join(', ')}`,
          field: 'fieldSelector',
        },
      ]);
    }
    out.push({ field: m[1], equal: m[2] !== '!=', value: m[3] });
  }
  return out;
}

function fieldValue(obj: KubeObject, field: string): string {
  if (field === 'metadata.namespace') return obj.metadata?.namespace ?? '';
  // A Go bool is always set: false when absent.
  if (field === 'spec.hostNetwork')
    return String((obj as { spec?: { hostNetwork?: boolean } }).spec?.hostNetwork === true);
  if (field === 'status.podIP') {
    const status = (obj as { status?: { podIP?: string; podIPs?: { ip?: string }[] } }).status;
    return status?.podIPs?.[0]?.ip ?? status?.podIP ?? '';
  }
  if (field === 'status.replicas')
    return String((obj as { status?: { replicas?: number } }).status?.replicas ?? 0);
  if (field === 'source') {
    const source = (obj as { source?: { component?: string } }).source;
    return source?.component ?? '';
  }
  let at: unknown = obj;
  for (const part of field.split('.'))
    at = at && typeof at === 'object' ? (at as Record<string, unknown>)[part] : undefined;
  return at === undefined || at === null ? '' : String(at);
}

export function matchesFields(reqs: FieldRequirement[], obj: KubeObject): boolean {
  for (const req of reqs) {
    if ((fieldValue(obj, req.field) === req.value) !== req.equal) return false;
  }
  return true;
}

/** The `metadata.name` value a field selector pins, when it pins one (lets list skip a scan). */
export function pinnedName(reqs: FieldRequirement[]): string | undefined {
  return reqs.find((r) => r.field === 'metadata.name' && r.equal)?.value;
}
