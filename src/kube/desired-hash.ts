/**
 * The no-op check's first half: a sha256 of the desired object, stored in the annotation
 * `mooring.dev/desired-hash` when we apply. If the live object carries the hash of what we would
 * apply now (and still contains our fields, see live-compare.ts), nothing is sent.
 */
import { hash } from 'node:crypto';
import { ANNOTATIONS } from '../labels.ts';
import { builtCanonicalJson, canonicalJson, sortedCopy } from '../objects/canonical-json.ts';
import type { KubeObject } from '../objects/kube-object.ts';

/** `obj` as hashed: without its own hash annotation (annotations always present), sharing the rest. */
function hashSubject(obj: KubeObject): KubeObject {
  const annotations = { ...(obj.metadata.annotations ?? {}) };
  delete annotations[ANNOTATIONS.desiredHash];
  return { ...obj, metadata: { ...obj.metadata, annotations } };
}

const sha256 = (text: string) => hash('sha256', text, 'hex');

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
