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
 * `JSON.stringify` with sorted keys (undefined members dropped, undefined array items as null),
 * built in one pass: it runs for every object of every deployment on every resync.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) {
    let s = '[';
    for (let i = 0; i < value.length; i++) {
      if (i > 0) s += ',';
      const v: unknown = value[i];
      s += v === undefined ? 'null' : canonicalJson(v);
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
    s += `${JSON.stringify(k)}:${canonicalJson(v)}`;
  }
  return `${s}}`;
}

/** The hash of a desired object, ignoring its own hash annotation. */
export function desiredHash(obj: KubeObject): string {
  const annotations = { ...(obj.metadata.annotations ?? {}) };
  delete annotations[ANNOTATIONS.desiredHash];
  const subject = { ...obj, metadata: { ...obj.metadata, annotations } };
  return createHash('sha256').update(canonicalJson(subject)).digest('hex');
}

/**
 * What we send for a desired object: Secret `stringData` folded into base64 `data` (the API
 * never returns stringData, so comparing it with live would always differ), and the hash annotation.
 */
export function prepareDesired(obj: KubeObject): KubeObject {
  // A copy: the caller's object is not ours to change. Rendered objects are plain JSON, so a JSON
  // round trip copies them exactly, and several times faster than structuredClone.
  let out = JSON.parse(JSON.stringify(obj)) as KubeObject;
  if (out.kind === 'Secret' && out.stringData && typeof out.stringData === 'object') {
    const data: Record<string, string> = { ...((out.data as Record<string, string> | undefined) ?? {}) };
    for (const [k, v] of Object.entries(out.stringData as Record<string, string>)) {
      data[k] = Buffer.from(String(v), 'utf8').toString('base64');
    }
    const { stringData: _dropped, ...rest } = out;
    out = { ...rest, data } as KubeObject;
  }
  const hash = desiredHash(out);
  out.metadata.annotations = { ...(out.metadata.annotations ?? {}), [ANNOTATIONS.desiredHash]: hash };
  return out;
}

/** The hash annotation of a live object, if any. */
export function liveHash(live: KubeObject): string | undefined {
  return live.metadata.annotations?.[ANNOTATIONS.desiredHash];
}
