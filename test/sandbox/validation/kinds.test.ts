/**
 * Table-driven: each invalid object of cases.ts is POSTed to the sandbox, which must answer the
 * 422 Invalid a real kube-apiserver answers: reason Invalid, details {name, group, kind, causes}
 * and the message `<Kind>[.<group>] "<name>" is invalid: <cause>` (several in brackets).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../helpers.ts';
import { APPS_CASES, type Case, CORE_CASES, OTHER_CASES } from './cases.ts';

function expectedMessage(c: Case): string {
  const kind = String(c.body.kind);
  const qualified = String(c.body.apiVersion).includes('/')
    ? `${kind}.${String(c.body.apiVersion).split('/')[0]}`
    : kind;
  const parts = c.causes.map((x) => `${x.field}: ${x.message}`);
  const joined = parts.length === 1 ? parts[0] : `[${parts.join(', ')}]`;
  return `${qualified} "${c.body.metadata.name}" is invalid: ${joined}`;
}

describe('validation as kube-apiserver does it (422 Invalid, per kind)', () => {
  let sb: Sandbox;
  beforeAll(async () => {
    sb = await startSandbox();
  });
  afterAll(async () => {
    await sb.close();
  });

  for (const [family, cases] of [
    ['apps/v1', APPS_CASES],
    ['core/v1', CORE_CASES],
    ['policy, autoscaling, networking', OTHER_CASES],
  ] as const) {
    describe(family, () => {
      it.each(cases.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
        const res = await sb.call('POST', c.path, c.body);
        expect(res.status).toBe(422);
        expect(res.body.reason).toBe('Invalid');
        const apiVersion = String(c.body.apiVersion);
        const details = res.body.details as Record<string, unknown>;
        expect(details.name).toBe(c.body.metadata.name);
        expect(details.kind).toBe(c.body.kind);
        expect(details.group).toBe(apiVersion.includes('/') ? apiVersion.split('/')[0] : undefined);
        expect(details.causes).toEqual(c.causes);
        expect(res.body.message).toBe(expectedMessage(c));
        // Nothing was stored.
        const get = await sb.call('GET', `${c.path}/${c.body.metadata.name}`);
        expect(get.status).toBe(404);
      });
    });
  }

  it('several causes are listed in brackets, in the order the server finds them', async () => {
    const c = APPS_CASES[0] as Case;
    const body = structuredClone(c.body);
    body.metadata.name = 'several';
    body.spec.template.spec.containers.push({ name: 'app', image: 'busybox' });
    const res = await sb.call('POST', c.path, body);
    expect(res.status).toBe(422);
    expect(res.body.message).toBe(
      'Deployment.apps "several" is invalid: [spec.template.spec.containers[0].ports[0].containerPort: Invalid value: 70000: must be between 1 and 65535, inclusive, spec.template.spec.containers[1].name: Duplicate value: "app"]',
    );
  });
});
