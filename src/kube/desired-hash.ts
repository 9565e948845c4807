/**
 * The no-op check's first half: a sha256 of the desired object, stored in the annotation
 * `mooring.dev/desired-hash` when we apply. If the live object carries the hash of what we would
 * apply now (and still contains our fields, see live-compare.ts), nothing is sent.
 */
import { createHash } from 'node:crypto';
import { ANNOTATIONS } from '../labels.ts';
import type { KubeObject } from './types.ts';

/**
 * JSON with object keys sorted at every level, so equal objects hash equally. Same text as
 * `JSON.stringify` with sorted keys (undefined members dropped, undefined array items as null).
 * It runs for every deployment on every poll and every object on every resync, so it is a copy
 * with sorted keys serialized natively (a quarter faster than building the string by hand).
 */
export function canonicalJson(value: unknown): string {
  const copy = sortedCopy(value);
  return copy === undefined ? builtCanonicalJson(value) : (JSON.stringify(copy) ?? 'null');
}

/** canonicalJson built by hand, for what sortedCopy cannot hold. */
function builtCanonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) {
    let s = '[';
    for (let i = 0; i < value.length; i++) {
      if (i > 0) s += ',';
      const v: unknown = value[i];
      s += v === undefined ? 'null' : builtCanonicalJson(v);
    }
    return `${s}]`;
  }
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record).sort();
  let s = '{';
  let first = true;
  for (const k of keys) {
    const v = record[k];
    if (v === undefined) continue;
    if (!first) s += ',';
    first = false;
    s += `${JSON.stringify(k)}:${builtCanonicalJson(v)}`;
  }
  return `${s}}`;
}

/** `obj` as hashed: without its own hash annotation (annotations always present), sharing the rest. */
function hashSubject(obj: KubeObject): KubeObject {
  const annotations = { ...(obj.metadata.annotations ?? {}) };
  delete annotations[ANNOTATIONS.desiredHash];
  return { ...obj, metadata: { ...obj.metadata, annotations } };
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** The hash of a desired object, ignoring its own hash annotation. */
export function desiredHash(obj: KubeObject): string {
  return sha256(canonicalJson(hashSubject(obj)));
}

/** A Secret's `stringData` folded into base64 `data`, sharing the rest; other objects as they are. */
function foldStringData(obj: KubeObject): KubeObject {
  if (obj.kind !== 'Secret' || !obj.stringData || typeof obj.stringData !== 'object') return obj;
  const data: Record<string, string> = { ...((obj.data as Record<string, string> | undefined) ?? {}) };
  for (const [k, v] of Object.entries(obj.stringData as Record<string, string>)) {
    data[k] = Buffer.from(String(v), 'utf8').toString('base64');
  }
  const { stringData: _dropped, ...rest } = obj;
  return { ...rest, data } as KubeObject;
}

/** A key that JavaScript orders before all others, whatever the order it was added in. */
const ARRAY_INDEX = /^(?:0|[1-9]\d{0,9})$/;
const isArrayIndex = (k: string) => ARRAY_INDEX.test(k) && Number(k) < 4294967295;

/**
 * A plain copy of `value` whose objects hold their keys in sorted order, so that `JSON.stringify`
 * of it is `canonicalJson(value)`; undefined when it cannot be (a key such as "0" is always
 * enumerated first by JavaScript, whatever the order; "__proto__" is no ordinary key).
 */
function sortedCopy(value: unknown): unknown {
  if (value === null) return null;
  if (typeof value !== 'object') {
    // What canonicalJson writes for a value JSON has no text for (a function, say): null.
    return typeof value === 'function' || typeof value === 'symbol' ? null : value;
  }
  if (Array.isArray(value)) {
    const out = new Array<unknown>(value.length);
    for (let i = 0; i < value.length; i++) {
      const v: unknown = value[i];
      const c = v === undefined ? null : sortedCopy(v);
      if (c === undefined) return undefined;
      out[i] = c;
    }
    return out;
  }
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record).sort();
  const out: Record<string, unknown> = {};
  for (const k of keys) {
    const v = record[k];
    if (v === undefined) continue;
    // "__proto__" would set the copy's prototype, not a key.
    if (isArrayIndex(k) || k === '__proto__') return undefined;
    const c = sortedCopy(v);
    if (c === undefined) return undefined;
    out[k] = c;
  }
  return out;
}

/** A desired object prepared for apply, with the JSON text to send. */
export interface Prepared {
  object: KubeObject;
  /** `JSON.stringify(object)`, made without serializing the object a second time. */
  body: string;
}

/** `{"k":text,...}` from member names and their serialized values. */
function objectText(members: readonly string[], texts: readonly string[]): string {
  let s = '{';
  for (let i = 0; i < members.length; i++)
    s += `${i > 0 ? ',' : ''}${JSON.stringify(members[i])}:${texts[i]}`;
  return `${s}}`;
}

/**
 * What we send for a desired object: Secret `stringData` folded into base64 `data` (the API
 * never returns stringData, so comparing it with live would always differ), and the hash annotation.
 * The copy we send (the caller's object is not ours to change) has its keys sorted, so its
 * serialization is the canonical text that is hashed: one native serialization, no parse. The
 * text is made member by member at the top level, so that the body differs from it only in
 * `metadata` (which gains the annotation), and only that member is serialized again.
 */
export function prepareForApply(obj: KubeObject): Prepared {
  const subject = hashSubject(foldStringData(obj));
  const out = sortedCopy(subject) as KubeObject | undefined;
  if (out === undefined) {
    const text = builtCanonicalJson(subject);
    const object = JSON.parse(text) as KubeObject;
    object.metadata.annotations = {
      ...(object.metadata.annotations ?? {}),
      [ANNOTATIONS.desiredHash]: sha256(text),
    };
    return { object, body: JSON.stringify(object) };
  }
  const members = Object.keys(out);
  const texts = members.map((k) => JSON.stringify(out[k]));
  const hash = sha256(objectText(members, texts));
  out.metadata.annotations = { ...(out.metadata.annotations ?? {}), [ANNOTATIONS.desiredHash]: hash };
  texts[members.indexOf('metadata')] = JSON.stringify(out.metadata);
  return { object: out, body: objectText(members, texts) };
}

/** The hash annotation of a live object, if any. */
export function liveHash(live: KubeObject): string | undefined {
  return live.metadata.annotations?.[ANNOTATIONS.desiredHash];
}
