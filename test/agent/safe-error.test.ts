import { describe, expect, it } from 'vitest';
import { describeError, safeErr } from '../../src/agent/safe-error.ts';
import { MooringError } from '../../src/errors.ts';

/** Shaped like client-node's ApiException: the message embeds the response body. */
class ApiException extends Error {
  code = 422;
  body = { message: 'Secret "x" is invalid: data[TOKEN]: Invalid value: "s3cr3t-value"' };
  constructor() {
    super('HTTP-Code: 422 Message: Unknown API Status Code! Body: {"message":"... s3cr3t-value ..."}');
    this.name = 'ApiException';
  }
}

describe('safe errors', () => {
  it('keeps a MooringError code, message and details', () => {
    const err = new MooringError('MOORING_E_KUBE_CONFLICT', 'Deployment/a/b: conflict', {
      details: { status: 409 },
    });
    expect(describeError(err)).toEqual({
      code: 'MOORING_E_KUBE_CONFLICT',
      message: 'Deployment/a/b: conflict',
    });
    expect(safeErr(err)).toMatchObject({ code: 'MOORING_E_KUBE_CONFLICT', details: { status: 409 } });
  });

  it('drops the message of a foreign error that carries a response body, also as a cause', () => {
    const foreign = new ApiException();
    expect(JSON.stringify(describeError(foreign))).not.toContain('s3cr3t-value');
    expect(JSON.stringify(safeErr(foreign))).not.toContain('s3cr3t-value');
    const wrapped = new MooringError('MOORING_E_INTERNAL', 'apply failed', { cause: foreign });
    expect(JSON.stringify(safeErr(wrapped))).not.toContain('s3cr3t-value');
    expect(safeErr(foreign)).toMatchObject({ type: 'ApiException', code: 'MOORING_E_INTERNAL' });
  });
});
