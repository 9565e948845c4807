/**
 * The protobuf bodies kubectl sends for access reviews (client-go's typed authorization client
 * prefers protobuf), decoded by protobufjs from the messages of k8s.io/api/authorization/v1
 * generated.proto, inside the `k8s\0` + runtime.Unknown envelope every Kubernetes protobuf body has.
 */
import protobuf from 'protobufjs';
import { badRequest } from './status.ts';

const s = (id: number) => ({ type: 'string', id });
const m = (type: string, id: number) => ({ type, id });

// Field numbers as in the generated .proto files; only what a review carries.
const root = protobuf.Root.fromJSON({
  nested: {
    TypeMeta: { fields: { apiVersion: s(1), kind: s(2) } },
    Unknown: { fields: { typeMeta: m('TypeMeta', 1), raw: m('bytes', 2) } },
    ObjectMeta: { fields: { name: s(1), generateName: s(2), namespace: s(3) } },
    ResourceAttributes: {
      fields: {
        namespace: s(1),
        verb: s(2),
        group: s(3),
        version: s(4),
        resource: s(5),
        subresource: s(6),
        name: s(7),
      },
    },
    NonResourceAttributes: { fields: { path: s(1), verb: s(2) } },
    SelfSubjectAccessReviewSpec: {
      fields: {
        resourceAttributes: m('ResourceAttributes', 1),
        nonResourceAttributes: m('NonResourceAttributes', 2),
      },
    },
    SelfSubjectAccessReview: {
      fields: { metadata: m('ObjectMeta', 1), spec: m('SelfSubjectAccessReviewSpec', 2) },
    },
    SelfSubjectRulesReviewSpec: { fields: { namespace: s(1) } },
    SelfSubjectRulesReview: {
      fields: { metadata: m('ObjectMeta', 1), spec: m('SelfSubjectRulesReviewSpec', 2) },
    },
  },
});

const MAGIC = Buffer.from([0x6b, 0x38, 0x73, 0x00]);

/** A protobuf review body as its JSON form (`kind` and `apiVersion` from the envelope). */
export function decodeReview(bytes: Buffer): Record<string, unknown> {
  if (!bytes.subarray(0, 4).equals(MAGIC)) throw badRequest('protobuf: the body does not start with k8s\\0');
  try {
    const unknown = root.lookupType('Unknown').decode(bytes.subarray(4)) as unknown as {
      typeMeta?: { apiVersion?: string; kind?: string };
      raw?: Uint8Array;
    };
    const kind = unknown.typeMeta?.kind ?? '';
    const type = root.lookupType(kind === 'SelfSubjectRulesReview' ? kind : 'SelfSubjectAccessReview');
    const body = type.toObject(type.decode(unknown.raw ?? new Uint8Array()), { defaults: false });
    return { kind, apiVersion: unknown.typeMeta?.apiVersion ?? '', metadata: {}, ...body };
  } catch (error) {
    throw badRequest(`protobuf: ${(error as Error).message}`);
  }
}
