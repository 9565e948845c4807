/**
 * Decoding of the Kubernetes protobuf encoding for the few request bodies clients send that way
 * to core kinds: client-go typed clients (helm's release storage) write Secrets and ConfigMaps,
 * and DeleteOptions, as `application/vnd.kubernetes.protobuf`. The envelope is the magic
 * `k8s\0` then a runtime.Unknown {typeMeta, raw}; field numbers are those of the Kubernetes
 * generated.proto files. Responses are always JSON (clients accept it).
 */
import { badRequest } from './status.ts';
import type { KubeObject, ObjectMeta, OwnerReference } from './types.ts';

export const PROTOBUF = 'application/vnd.kubernetes.protobuf';

const MAGIC = [0x6b, 0x38, 0x73, 0x00];

type Field = { no: number; wire: number; int?: bigint; bytes?: Buffer };

const EMPTY: Buffer = Buffer.alloc(0);

/** Splits one protobuf message into its fields (varint and length-delimited; fixed skipped). */
function fields(buf: Buffer): Field[] {
  const out: Field[] = [];
  let pos = 0;
  const varint = (): bigint => {
    let result = 0n;
    let shift = 0n;
    for (;;) {
      if (pos >= buf.length) throw badRequest('protobuf: truncated varint');
      const byte = buf[pos++] as number;
      result |= BigInt(byte & 0x7f) << shift;
      if ((byte & 0x80) === 0) return result;
      shift += 7n;
    }
  };
  while (pos < buf.length) {
    const key = Number(varint());
    const no = key >> 3;
    const wire = key & 7;
    if (wire === 0) out.push({ no, wire, int: varint() });
    else if (wire === 2) {
      const len = Number(varint());
      if (pos + len > buf.length) throw badRequest('protobuf: truncated field');
      out.push({ no, wire, bytes: buf.subarray(pos, pos + len) });
      pos += len;
    } else if (wire === 1) pos += 8;
    else if (wire === 5) pos += 4;
    else throw badRequest(`protobuf: unsupported wire type ${wire}`);
  }
  return out;
}

const str = (f: Field): string => f.bytes?.toString('utf8') ?? '';

function mapEntry(f: Field): [string, Buffer] {
  let key = '';
  let value: Buffer = EMPTY;
  for (const e of fields(f.bytes ?? EMPTY)) {
    if (e.no === 1) key = str(e);
    if (e.no === 2) value = e.bytes ?? EMPTY;
  }
  return [key, value];
}

function stringMap(list: Field[], no: number): Record<string, string> | undefined {
  const entries = list.filter((f) => f.no === no).map(mapEntry);
  return entries.length ? Object.fromEntries(entries.map(([k, v]) => [k, v.toString('utf8')])) : undefined;
}

function ownerReference(buf: Buffer): OwnerReference {
  const ref: OwnerReference = { apiVersion: '', kind: '', name: '', uid: '' };
  for (const f of fields(buf)) {
    if (f.no === 1) ref.kind = str(f);
    else if (f.no === 3) ref.name = str(f);
    else if (f.no === 4) ref.uid = str(f);
    else if (f.no === 5) ref.apiVersion = str(f);
    else if (f.no === 6) ref.controller = f.int === 1n;
    else if (f.no === 7) ref.blockOwnerDeletion = f.int === 1n;
  }
  return ref;
}

/** metav1.ObjectMeta: the fields a client may set (system fields are the server's anyway). */
function objectMeta(buf: Buffer): ObjectMeta {
  const list = fields(buf);
  const meta: ObjectMeta = {};
  for (const f of list) {
    if (f.no === 1) meta.name = str(f);
    else if (f.no === 2) meta.generateName = str(f);
    else if (f.no === 3) meta.namespace = str(f);
    else if (f.no === 5) meta.uid = str(f);
    else if (f.no === 6) meta.resourceVersion = str(f);
    else if (f.no === 13)
      meta.ownerReferences = [...(meta.ownerReferences ?? []), ownerReference(f.bytes ?? EMPTY)];
    else if (f.no === 14) meta.finalizers = [...(meta.finalizers ?? []), str(f)];
  }
  const labels = stringMap(list, 11);
  const annotations = stringMap(list, 12);
  if (labels) meta.labels = labels;
  if (annotations) meta.annotations = annotations;
  return meta;
}

function secret(list: Field[]): KubeObject {
  const out: KubeObject = {};
  for (const f of list) {
    if (f.no === 1) out.metadata = objectMeta(f.bytes ?? EMPTY);
    else if (f.no === 3) out.type = str(f);
    else if (f.no === 5) out.immutable = f.int === 1n;
  }
  const data = list.filter((f) => f.no === 2).map(mapEntry);
  if (data.length) out.data = Object.fromEntries(data.map(([k, v]) => [k, v.toString('base64')]));
  const stringData = stringMap(list, 4);
  if (stringData) out.stringData = stringData;
  return out;
}

function configMap(list: Field[]): KubeObject {
  const out: KubeObject = {};
  for (const f of list) {
    if (f.no === 1) out.metadata = objectMeta(f.bytes ?? EMPTY);
    else if (f.no === 4) out.immutable = f.int === 1n;
  }
  const data = stringMap(list, 2);
  if (data) out.data = data;
  const binary = list.filter((f) => f.no === 3).map(mapEntry);
  if (binary.length) out.binaryData = Object.fromEntries(binary.map(([k, v]) => [k, v.toString('base64')]));
  return out;
}

function deleteOptions(list: Field[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const dryRun: string[] = [];
  for (const f of list) {
    if (f.no === 3) out.orphanDependents = f.int === 1n;
    else if (f.no === 4) out.propagationPolicy = str(f);
    else if (f.no === 5) dryRun.push(str(f));
  }
  if (dryRun.length) out.dryRun = dryRun;
  return out;
}

const DECODERS: Record<string, (list: Field[]) => Record<string, unknown>> = {
  'v1/Secret': secret,
  'v1/ConfigMap': configMap,
  'v1/DeleteOptions': deleteOptions,
  'meta.k8s.io/v1/DeleteOptions': deleteOptions,
};

/** Decodes a protobuf request body into the JSON object it stands for; 415 for kinds not decoded here. */
export function decodeProtobuf(body: Buffer): Record<string, unknown> | undefined {
  if (body.length < 4 || MAGIC.some((b, i) => body[i] !== b))
    throw badRequest('protobuf: missing the k8s envelope');
  let apiVersion = '';
  let kind = '';
  let raw: Buffer = EMPTY;
  for (const f of fields(body.subarray(4))) {
    if (f.no === 1) {
      for (const t of fields(f.bytes ?? EMPTY)) {
        if (t.no === 1) apiVersion = str(t);
        if (t.no === 2) kind = str(t);
      }
    } else if (f.no === 2) raw = f.bytes ?? EMPTY;
  }
  const decode = DECODERS[`${apiVersion}/${kind}`];
  if (!decode) return undefined;
  const obj = decode(fields(raw));
  return kind === 'DeleteOptions' ? obj : { apiVersion, kind, ...obj };
}
