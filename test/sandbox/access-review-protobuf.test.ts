/**
 * SelfSubjectAccessReview protobuf bodies (what `kubectl auth can-i` sends) decode through the
 * shared decoder, from the vendored authorization/v1 definitions, every field kept.
 */
import { describe, expect, it } from 'vitest';
import { decodeProtobuf } from '../../src/sandbox/protobuf.ts';
import { protoSchema } from '../../src/sandbox/proto-schema.ts';

/** A `k8s\0` + runtime.Unknown body around `message`, as client-go writes one. */
function envelope(kind: string, message: Record<string, unknown>): Buffer {
  const root = protoSchema().root;
  const type = root.lookupType(`k8s.io.api.authorization.v1.${kind}`);
  const raw = type.encode(type.fromObject(message)).finish();
  const unknown = root.lookupType('k8s.io.apimachinery.pkg.runtime.Unknown');
  const body = unknown
    .encode(unknown.fromObject({ typeMeta: { apiVersion: 'authorization.k8s.io/v1', kind }, raw }))
    .finish();
  return Buffer.concat([Buffer.from('k8s\0'), body]);
}

describe('access reviews in protobuf', () => {
  it('a SelfSubjectAccessReview decodes through decodeProtobuf, field selector included', () => {
    const body = envelope('SelfSubjectAccessReview', {
      metadata: {},
      spec: {
        resourceAttributes: {
          namespace: 'team',
          verb: 'list',
          group: 'apps',
          resource: 'deployments',
          subresource: 'scale',
          fieldSelector: { rawSelector: 'metadata.name=web' },
        },
      },
    });
    const decoded = decodeProtobuf(body);
    expect(decoded?.kind).toBe('SelfSubjectAccessReview');
    expect(decoded?.apiVersion).toBe('authorization.k8s.io/v1');
    expect(decoded?.spec).toEqual({
      resourceAttributes: {
        namespace: 'team',
        verb: 'list',
        group: 'apps',
        resource: 'deployments',
        subresource: 'scale',
        fieldSelector: { rawSelector: 'metadata.name=web' },
      },
    });
  });

  it('a SelfSubjectRulesReview decodes with its namespace', () => {
    const decoded = decodeProtobuf(envelope('SelfSubjectRulesReview', { spec: { namespace: 'team' } }));
    expect(decoded?.kind).toBe('SelfSubjectRulesReview');
    expect(decoded?.spec).toEqual({ namespace: 'team' });
  });
});
