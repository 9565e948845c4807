/**
 * A decoded Kubernetes protobuf message as the JSON the Go types marshal to: the JSON name of each
 * field, inlined structs flattened, zero scalars dropped unless the Go field is a pointer or has no
 * omitempty (the Go marshaller writes every non-pointer field, so presence on the wire says
 * nothing), and the types with their own JSON form (Quantity, IntOrString, Time, RawExtension,
 * `bytes` as base64).
 */
import protobuf from 'protobufjs';
import { protoSchema } from './proto-schema.ts';
import { badRequest } from './status.ts';

type Obj = Record<string, unknown>;

const META = 'k8s.io.apimachinery.pkg.apis.meta.v1';
const OMIT = Symbol('omit');
/** Deeper than any Kubernetes object nests: a body past it is hostile, not a manifest. */
const MAX_DEPTH = 100;

function num(v: unknown): number {
  // int64 fields decode to Long objects; every Kubernetes int64 we take fits a double.
  return typeof v === 'number' ? v : Number(String(v));
}

function rfc3339(seconds: number, fraction?: string): string {
  const date = new Date(seconds * 1000);
  if (Number.isNaN(date.getTime())) throw badRequest('protobuf: a time is out of range');
  const base = date.toISOString().slice(0, 19);
  return fraction === undefined ? `${base}Z` : `${base}.${fraction}Z`;
}

function rawJson(raw: unknown): unknown {
  const bytes = raw instanceof Uint8Array ? Buffer.from(raw) : Buffer.alloc(0);
  if (bytes.length === 0) return OMIT;
  try {
    return JSON.parse(bytes.toString('utf8'));
  } catch {
    throw badRequest('protobuf: an embedded object is not JSON');
  }
}

/** Go's time.Duration String form (`1h2m3.5s`, `0s`), which metav1.Duration marshals to. */
function goDuration(ns: number): string {
  if (ns === 0) return '0s';
  const sign = ns < 0 ? '-' : '';
  let rest = Math.abs(ns);
  if (rest < 1e9) {
    const [unit, size] = rest < 1e3 ? ['ns', 1] : rest < 1e6 ? ['µs', 1e3] : ['ms', 1e6];
    return `${sign}${rest / (size as number)}${unit}`;
  }
  const h = Math.floor(rest / 3.6e12);
  rest -= h * 3.6e12;
  const m = Math.floor(rest / 6e10);
  rest -= m * 6e10;
  const s = `${rest / 1e9}s`;
  return `${sign}${h ? `${h}h${m}m` : m ? `${m}m` : ''}${s}`;
}

/** The JSON of a message type with its own JSON form, or undefined for an ordinary message. */
function special(type: protobuf.Type, m: Obj): unknown {
  switch (type.fullName.slice(1)) {
    case 'k8s.io.apimachinery.pkg.api.resource.Quantity':
      return typeof m.string === 'string' && m.string !== '' ? m.string : '0';
    case 'k8s.io.apimachinery.pkg.util.intstr.IntOrString':
      return num(m.type ?? 0) === 1 ? (m.strVal ?? '') : (m.intVal ?? 0);
    case `${META}.Time`: {
      const seconds = num(m.seconds ?? 0);
      return seconds === 0 && num(m.nanos ?? 0) === 0 ? null : rfc3339(seconds);
    }
    case `${META}.MicroTime`: {
      const seconds = num(m.seconds ?? 0);
      const nanos = num(m.nanos ?? 0);
      if (seconds === 0 && nanos === 0) return null;
      return rfc3339(seconds, String(Math.floor(nanos / 1000)).padStart(6, '0'));
    }
    case `${META}.Duration`:
      return goDuration(num(m.duration ?? 0));
    case `${META}.FieldsV1`:
      return rawJson(m.Raw);
    case 'k8s.io.apimachinery.pkg.runtime.RawExtension':
      return rawJson(m.raw);
    default:
      return undefined;
  }
}

function single(field: protobuf.Field, value: unknown, depth: number): unknown {
  const type = field.resolvedType;
  if (type instanceof protobuf.Type) {
    const own = special(type, value as Obj);
    return own !== undefined ? own : messageJson(type, value as Obj, depth + 1);
  }
  if (field.type === 'bytes') return Buffer.from(value as Uint8Array).toString('base64');
  if (field.type.endsWith('int64') || field.type.endsWith('fixed64')) return num(value);
  return value;
}

const isZero = (v: unknown): boolean => v === '' || v === 0 || v === false;

/** Converts one decoded message of `type` to its Kubernetes JSON object. */
export function messageJson(type: protobuf.Type, message: Obj, depth = 0): Obj {
  if (depth > MAX_DEPTH) throw badRequest('protobuf: the object nests too deeply');
  const flagsOf = protoSchema().fields[type.fullName.slice(1)] ?? {};
  const out: Obj = {};
  for (const field of type.fieldsArray) {
    if (!Object.hasOwn(message, field.name)) continue;
    const value = message[field.name];
    if (value === null || value === undefined) continue;
    const [flags = '', rename] = (flagsOf[field.name] ?? '').split(':');
    const key = rename ?? field.name;
    if (field.map) {
      const entries = Object.entries(value as Obj);
      if (entries.length)
        out[key] = Object.fromEntries(entries.map(([k, v]) => [k, single(field, v, depth)]));
      continue;
    }
    if (field.repeated) {
      const items = value as unknown[];
      if (items.length) out[key] = items.map((v) => single(field, v, depth)).filter((v) => v !== OMIT);
      continue;
    }
    const json = single(field, value, depth);
    if (json === OMIT) continue;
    const pointer = flags.includes('p');
    if (!pointer && !flags.includes('r') && isZero(json)) continue;
    if (flags.includes('z') && (json === null || isZero(json))) continue;
    if (flags.includes('i') && json !== null && typeof json === 'object') Object.assign(out, json);
    else out[key] = json;
  }
  return out;
}
