/**
 * FieldsV1, the JSON form of a field set in `metadata.managedFields`, as the apiserver writes
 * it: keys in structured-merge-diff's path element order (fields, then keys, values, indexes),
 * `.` for a member that also has children, `{}` for a leaf. Also the kube notation of paths used
 * in conflict messages, e.g. `.spec.template.spec.containers[name="app"].image`.
 */
import { ApplyError } from './errors.ts';
import { type FieldSet, keyPE, type SetNode, valuePE } from './field-set.ts';

const KIND_ORDER: Record<string, number> = { f: 0, k: 1, v: 2, i: 3 };

function typeRank(v: unknown): number {
  if (typeof v === 'number') return 0;
  if (typeof v === 'string') return 1;
  if (typeof v === 'boolean') return 2;
  if (Array.isArray(v)) return 3;
  if (v !== null && typeof v === 'object') return 4;
  return 5;
}

function compareValues(a: unknown, b: unknown): number {
  const ra = typeRank(a);
  const rb = typeRank(b);
  if (ra !== rb) return ra < rb ? -1 : 1;
  if (ra === 0) return (a as number) < (b as number) ? -1 : (a as number) > (b as number) ? 1 : 0;
  if (ra === 1) return (a as string) < (b as string) ? -1 : (a as string) > (b as string) ? 1 : 0;
  if (ra === 2) return a === b ? 0 : a ? 1 : -1;
  const sa = JSON.stringify(a);
  const sb = JSON.stringify(b);
  return sa < sb ? -1 : sa > sb ? 1 : 0;
}

const parsedPE = new Map<string, unknown>();

/** The value of a `v:` element, or the [name, value] pairs of a `k:` element (cached). */
function parsed(pe: string): unknown {
  let p = parsedPE.get(pe);
  if (p === undefined) {
    const v = JSON.parse(pe.slice(2)) as unknown;
    p = pe[0] === 'k' ? Object.entries(v as Record<string, unknown>) : v;
    if (parsedPE.size > 50_000) parsedPE.clear();
    parsedPE.set(pe, p);
  }
  return p;
}

/** The order structured-merge-diff gives path elements (fields, then keys, values, indexes). */
export function comparePE(a: string, b: string): number {
  const ka = KIND_ORDER[a[0] as string] ?? 4;
  const kb = KIND_ORDER[b[0] as string] ?? 4;
  if (ka !== kb) return ka < kb ? -1 : 1;
  if (ka === 0) {
    const na = a.slice(2);
    const nb = b.slice(2);
    return na < nb ? -1 : na > nb ? 1 : 0;
  }
  if (ka === 3) return Number(a.slice(2)) - Number(b.slice(2));
  if (ka === 2) return compareValues(parsed(a), parsed(b));
  const fa = parsed(a) as [string, unknown][];
  const fb = parsed(b) as [string, unknown][];
  for (let i = 0; ; i++) {
    const ea = fa[i];
    const eb = fb[i];
    if (!ea && !eb) return 0;
    if (!ea) return -1;
    if (!eb) return 1;
    if (ea[0] !== eb[0]) return ea[0] < eb[0] ? -1 : 1;
    const c = compareValues(ea[1], eb[1]);
    if (c !== 0) return c;
  }
}

function plainOrder(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Levels up to this size are sorted in place by insertion (no work space allocated). */
const INSERTION_SORT_MAX = 32;

/** The path elements of one level, in the apiserver's order. */
function sortedKeys(set: FieldSet): string[] {
  const keys: string[] = [];
  // Field names only: plain string order is the path element order.
  let fieldsOnly = true;
  let sorted = true;
  let prev = '';
  for (const pe of set.keys()) {
    if (pe.charCodeAt(0) !== 102 /* f */) fieldsOnly = false;
    else if (keys.length > 0 && pe < prev) sorted = false;
    keys.push(pe);
    prev = pe;
  }
  if (keys.length < 2 || (fieldsOnly && sorted)) return keys;
  const order = fieldsOnly ? plainOrder : comparePE;
  if (keys.length > INSERTION_SORT_MAX) return keys.sort(order);
  for (let i = 1; i < keys.length; i++) {
    const pe = keys[i] as string;
    let j = i - 1;
    while (j >= 0 && order(keys[j] as string, pe) > 0) {
      keys[j + 1] = keys[j] as string;
      j--;
    }
    keys[j + 1] = pe;
  }
  return keys;
}

// Encodings of sets already encoded: sets are never mutated once built, so an unchanged
// manager's set encodes to the same (shared, read-only) FieldsV1 object.
const encoded = new WeakMap<FieldSet, Record<string, unknown>>();
// Sets of FieldsV1 objects encoded or decoded recently, so the next write of an object (the
// controller's status write after a create, a re-apply) decodes nothing. Bounded: a set kept for
// every stored object would cost more heap than the objects themselves, and the collector's work
// grows with it; an older object's sets are decoded again when it is next written.
const RECENT_SETS = 256;
const decoded = new Map<object, FieldSet>();

function remember(fields: object, set: FieldSet): void {
  if (decoded.size >= RECENT_SETS) decoded.delete(decoded.keys().next().value as object);
  decoded.set(fields, set);
}

/** Encodes a set as FieldsV1 JSON (object keys in the apiserver's order). Treat as read-only. */
export function toFieldsV1(set: FieldSet): Record<string, unknown> {
  const cached = encoded.get(set);
  if (cached) return cached;
  const out = encode(set);
  encoded.set(set, out);
  remember(out, set);
  return out;
}

// Every leaf of every encoding is this one empty object (a Deployment's encoding has hundreds):
// encodings are read-only, and frozen it stays empty.
const LEAF: Record<string, unknown> = Object.freeze({});

function encode(set: FieldSet, out: Record<string, unknown> = {}): Record<string, unknown> {
  for (const pe of sortedKeys(set)) {
    const node = set.get(pe) as SetNode;
    if (!node.children || node.children.size === 0) out[pe] = LEAF;
    else out[pe] = encode(node.children, node.member ? { '.': LEAF } : {});
  }
  return out;
}

const canonical = new Map<string, string>();

function canonicalPE(raw: string): string {
  if (raw.charCodeAt(0) === 102 /* f */ && raw.charCodeAt(1) === 58 /* : */) return raw;
  let c = canonical.get(raw);
  if (c === undefined) {
    c = canonicalize(raw);
    if (canonical.size > 50_000) canonical.clear();
    canonical.set(raw, c);
  }
  return c;
}

function canonicalize(raw: string): string {
  const kind = raw[0];
  if (raw[1] !== ':' || kind === undefined || !(kind in KIND_ORDER)) {
    throw new ApplyError(`invalid path element ${JSON.stringify(raw)} in managedFields`, 500);
  }
  if (kind === 'k') {
    const fields = JSON.parse(raw.slice(2)) as Record<string, unknown>;
    const names = Object.keys(fields).sort();
    return keyPE(
      names,
      names.map((n) => fields[n]),
    );
  }
  if (kind === 'v') return valuePE(JSON.parse(raw.slice(2)));
  return raw;
}

/** Decodes FieldsV1 JSON into a set; throws ApplyError when it is malformed. */
export function fromFieldsV1(fields: unknown): FieldSet {
  if (fields !== null && typeof fields === 'object') {
    const cached = decoded.get(fields);
    if (cached) return cached;
  }
  const out = decode(fields);
  remember(fields as object, out);
  return out;
}

function decode(fields: unknown): FieldSet {
  const out: FieldSet = new Map();
  if (fields === null || typeof fields !== 'object' || Array.isArray(fields)) {
    throw new ApplyError('managedFields fieldsV1 must be an object', 500);
  }
  const obj = fields as Record<string, unknown>;
  for (const raw in obj) {
    if (raw === '.') continue;
    const inner = obj[raw];
    const pe = canonicalPE(raw);
    if (inner === null || typeof inner !== 'object' || Array.isArray(inner)) {
      throw new ApplyError('managedFields fieldsV1 entries must be objects', 500);
    }
    let empty = true;
    for (const _ in inner) {
      empty = false;
      break;
    }
    // A leaf (most entries) is a member with no children: no map to build.
    if (empty) {
      out.set(pe, { member: true, children: undefined });
      continue;
    }
    const member = '.' in inner;
    const decodedChildren = decode(inner);
    const children = decodedChildren.size > 0 ? decodedChildren : undefined;
    if (member || children) out.set(pe, { member, children });
  }
  return out;
}

function peString(pe: string): string {
  switch (pe[0]) {
    case 'f':
      return `.${pe.slice(2)}`;
    case 'k': {
      const fields = JSON.parse(pe.slice(2)) as Record<string, unknown>;
      return `[${Object.entries(fields)
        .map(([k, v]) => `${k}=${typeof v === 'string' ? JSON.stringify(v) : String(v)}`)
        .join(',')}]`;
    }
    case 'v': {
      const v = JSON.parse(pe.slice(2)) as unknown;
      return `[=${typeof v === 'string' ? JSON.stringify(v) : String(v)}]`;
    }
    default:
      return `[${pe.slice(2)}]`;
  }
}

/** A path in the apiserver's notation: `.spec.template.spec.containers[name="app"].image`. */
export function pathString(path: readonly string[]): string {
  return path.map(peString).join('');
}

/** Calls f with each member path: members of a level first, then deeper levels, all sorted. */
export function iteratePaths(set: FieldSet, f: (path: string[]) => void, prefix: string[] = []): void {
  const keys = sortedKeys(set);
  for (const pe of keys) if (set.get(pe)?.member) f([...prefix, pe]);
  for (const pe of keys) {
    const children = set.get(pe)?.children;
    if (children) iteratePaths(children, f, [...prefix, pe]);
  }
}
