import { describe, expect, it } from 'vitest';
import { ApiException } from '@kubernetes/client-node';
import { ADMISSION_REASON_WITHHELD, immutableFields, kubeError } from '../../src/kube/errors.ts';

const ID = 'Secret/apps/shop-api-env';
const SECRET = 'hunter2-very-secret';

function status(
  code: number,
  reason: string,
  message: string,
  causes?: unknown[],
  extra: Record<string, unknown> = {},
) {
  return new ApiException(
    code,
    'Unsuccessful HTTP Request',
    {
      kind: 'Status',
      apiVersion: 'v1',
      status: 'Failure',
      code,
      reason,
      message,
      details: { ...(causes ? { causes } : {}), ...extra },
    },
    {},
  );
}

describe('kubeError: Kubernetes Status → MooringError', () => {
  it('a 422 keeps field paths and reasons, never the echoed value', () => {
    const err = status(
      422,
      'Invalid',
      `Secret "x" is invalid: data[TOKEN]: Invalid value: "${SECRET}": bad`,
      [{ reason: 'FieldValueInvalid', message: `Invalid value: "${SECRET}": bad`, field: 'data[TOKEN]' }],
    );
    const mapped = kubeError(err, ID, 'apply');
    expect(mapped.code).toBe('MOORING_E_KUBE_INVALID');
    expect(mapped.message.startsWith(`${ID}: `)).toBe(true);
    expect(mapped.message).toContain('data[TOKEN] (FieldValueInvalid)');
    expect(JSON.stringify({ m: mapped.message, d: mapped.details, c: mapped.cause ?? null })).not.toContain(
      SECRET,
    );
    expect(mapped.retryable).toBe(false);
  });

  it('names immutable fields from the causes', () => {
    const err = status(422, 'Invalid', 'Deployment.apps "x" is invalid', [
      {
        reason: 'FieldValueInvalid',
        message: 'Invalid value: {...}: field is immutable',
        field: 'spec.selector',
      },
      { reason: 'FieldValueRequired', message: 'Required value', field: 'spec.template' },
    ]);
    expect(immutableFields(err)).toEqual(['spec.selector']);
    expect(kubeError(err, 'Deployment/apps/x', 'apply').details.immutableFields).toEqual(['spec.selector']);
    expect(immutableFields(status(409, 'Conflict', 'field is immutable'))).toEqual([]);
  });

  it.each([
    [401, 'Unauthorized', 'MOORING_E_KUBE_FORBIDDEN', false],
    [403, 'Forbidden', 'MOORING_E_KUBE_FORBIDDEN', false],
    [404, 'NotFound', 'MOORING_E_KUBE_NOT_FOUND', false],
    [409, 'Conflict', 'MOORING_E_KUBE_CONFLICT', true],
    [400, 'BadRequest', 'MOORING_E_KUBE_REQUEST', false],
    [429, 'TooManyRequests', 'MOORING_E_KUBE_SERVER', true],
    [500, 'InternalError', 'MOORING_E_KUBE_SERVER', true],
    [503, 'ServiceUnavailable', 'MOORING_E_KUBE_SERVER', true],
    [405, 'MethodNotAllowed', 'MOORING_E_KUBE_REQUEST', false],
  ])('HTTP %i → %s', (code, reason, expected, retryable) => {
    const mapped = kubeError(status(code, reason, `thing "${ID}" ${reason}`), ID, 'apply');
    expect(mapped.code).toBe(expected);
    expect(mapped.retryable).toBe(retryable);
    expect(mapped.message.startsWith(`${ID}: apply `)).toBe(true);
  });

  it('a 400 does not repeat the server text (it may quote the body)', () => {
    const mapped = kubeError(status(400, 'BadRequest', `json: cannot unmarshal "${SECRET}"`), ID, 'apply');
    expect(mapped.message).not.toContain(SECRET);
  });

  it('keeps the API server text of a 403, 404 and 409 it builds from names (RBAC, not found, conflicts)', () => {
    const rbac = `secrets "shop-api-env" is forbidden: User "system:serviceaccount:mooring:mooring" cannot patch resource "secrets" in API group "" in the namespace "apps"`;
    expect(kubeError(status(403, 'Forbidden', rbac), ID, 'apply').message).toBe(
      `${ID}: apply refused (403): ${rbac}`,
    );
    const conflict = 'Apply failed with 1 conflict: conflict with "kubectl" using apps/v1: .spec.replicas';
    expect(kubeError(status(409, 'Conflict', conflict), ID, 'apply').message).toBe(
      `${ID}: apply conflict (409 Conflict): ${conflict}`,
    );
  });

  it.each([
    [
      403,
      `admission webhook "validation.gatekeeper.sh" denied the request: [env-policy] env value "${SECRET}" is not allowed`,
      'admission webhook "validation.gatekeeper.sh" denied the request',
    ],
    [
      409,
      `admission webhook "policy.example.com" denied the request: value ${SECRET} already used`,
      'admission webhook "policy.example.com" denied the request',
    ],
    [
      403,
      `secrets "shop-api-env" is forbidden: ValidatingAdmissionPolicy 'no-plain-tokens' with binding 'all' denied request: token ${SECRET} looks real`,
      `secrets "shop-api-env" is forbidden: ValidatingAdmissionPolicy 'no-plain-tokens' with binding 'all' denied request`,
    ],
  ])(
    'of an admission refusal (%i) keeps who refused, not the reason, which may quote any field',
    (code, message, kept) => {
      const mapped = kubeError(status(code, code === 403 ? 'Forbidden' : 'Conflict', message), ID, 'apply');
      expect(mapped.message).not.toContain(SECRET);
      expect(mapped.message).toContain(`: ${kept} ${ADMISSION_REASON_WITHHELD}`);
    },
  );

  it('keeps the server retry hint', () => {
    const mapped = kubeError(
      status(429, 'TooManyRequests', 'slow down', undefined, { retryAfterSeconds: 3 }),
      ID,
      'list',
    );
    expect(mapped.retryAfterMs).toBe(3000);
  });

  it('maps network failures to KUBE_UNREACHABLE (undici: TypeError fetch failed, cause.code)', () => {
    const err = new TypeError('fetch failed', {
      cause: Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' }),
    });
    const mapped = kubeError(err, ID, 'apply');
    expect(mapped.code).toBe('MOORING_E_KUBE_UNREACHABLE');
    expect(mapped.retryable).toBe(true);
    expect(mapped.message).toBe(`${ID}: apply failed: Kubernetes API unreachable (ECONNREFUSED)`);
  });
});
