/**
 * Request bodies in the Kubernetes protobuf encoding (`application/vnd.kubernetes.protobuf`),
 * which client-go typed clients send for built-in kinds: kubectl's `create <generator>`,
 * `autoscale` and `expose`, helm's release Secrets. The envelope is the magic `k8s\0` then a
 * runtime.Unknown {typeMeta, raw}; `raw` is the typed message, decoded by protobufjs from the
 * vendored Kubernetes definitions and turned into the object's JSON form. Responses stay JSON.
 */
import { messageJson } from './proto-json.ts';
import { messageOf, protoSchema } from './proto-schema.ts';
import { badRequest } from './status.ts';

export const PROTOBUF = 'application/vnd.kubernetes.protobuf';

const MAGIC = [0x6b, 0x38, 0x73, 0x00];

type Obj = Record<string, unknown>;

function decodeWith<T>(what: string, decode: () => T): T {
  try {
    return decode();
  } catch (error) {
    // protobufjs throws plain errors (index out of range, invalid wire type) for a broken body.
    throw badRequest(`protobuf: cannot decode the ${what}: ${(error as Error).message}`);
  }
}

/**
 * Decodes a protobuf request body into the JSON object it stands for; undefined when its kind has
 * no Kubernetes message definition here (a custom resource), which the caller answers with 415.
 */
export function decodeProtobuf(body: Buffer): Obj | undefined {
  if (body.length < 4 || MAGIC.some((b, i) => body[i] !== b))
    throw badRequest('protobuf: missing the k8s envelope');
  const unknownType = protoSchema().root.lookupType('k8s.io.apimachinery.pkg.runtime.Unknown');
  const envelope = decodeWith('envelope', () => unknownType.decode(body.subarray(4))) as unknown as Obj;
  const typeMeta = (envelope.typeMeta ?? {}) as Obj;
  const apiVersion = typeof typeMeta.apiVersion === 'string' ? typeMeta.apiVersion : '';
  const kind = typeof typeMeta.kind === 'string' ? typeMeta.kind : '';
  const type = messageOf(apiVersion, kind);
  if (!type) return undefined;
  const raw = envelope.raw instanceof Uint8Array ? envelope.raw : new Uint8Array();
  const message = decodeWith(kind, () => type.decode(raw)) as unknown as Obj;
  const obj = messageJson(type, message);
  return kind === 'DeleteOptions' ? obj : { apiVersion, kind, ...obj };
}
