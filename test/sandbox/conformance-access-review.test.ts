/**
 * authorization.k8s.io/v1 access reviews through real kubectl 1.34: the sandbox enforces no RBAC,
 * so it answers as kube-apiserver with `--authorization-mode=AlwaysAllow` does: every
 * SelfSubjectAccessReview is allowed, and SelfSubjectRulesReview lists `*` rules.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from './helpers.ts';
import { printedTable } from './kubectl-table.ts';

const SSAR = '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews';

describe('conformance: SelfSubjectAccessReview and SelfSubjectRulesReview', () => {
  let sb: Sandbox;
  beforeAll(async () => {
    sb = await startSandbox({ namespaces: ['team'] });
  });
  afterAll(async () => {
    await sb.close();
  });

  it('kubectl auth can-i create deployments prints yes (a protobuf SelfSubjectAccessReview)', async () => {
    const out = await sb.kubectl(['auth', 'can-i', 'create', 'deployments', '-n', 'team']);
    expect(out.stderr).toBe('');
    expect(out.stdout).toBe('yes\n');
    expect(out.code).toBe(0);
    const sub = await sb.kubectl(['auth', 'can-i', 'patch', 'deployments/scale', '--subresource=scale']);
    expect(sub.stdout).toBe('yes\n');
  });

  it('the review is answered 201 with the request echoed and status.allowed true, no reason', async () => {
    const spec = {
      resourceAttributes: { namespace: 'team', verb: 'create', group: 'apps', resource: 'deployments' },
    };
    const res = await sb.call('POST', SSAR, {
      kind: 'SelfSubjectAccessReview',
      apiVersion: 'authorization.k8s.io/v1',
      metadata: {},
      spec,
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      kind: 'SelfSubjectAccessReview',
      apiVersion: 'authorization.k8s.io/v1',
      metadata: {},
      spec,
      status: { allowed: true },
    });
  });

  it('a review with neither (or both) resourceAttributes and nonResourceAttributes is 422, as the server validates it', async () => {
    const none = await sb.call('POST', SSAR, {
      kind: 'SelfSubjectAccessReview',
      apiVersion: 'authorization.k8s.io/v1',
      spec: {},
    });
    expect(none.status).toBe(422);
    expect(none.body.reason).toBe('Invalid');
    expect(none.body.message).toBe(
      'SelfSubjectAccessReview.authorization.k8s.io "" is invalid: spec.resourceAttributes: Invalid value: "null": exactly one of nonResourceAttributes or resourceAttributes must be specified',
    );
    const both = await sb.call('POST', SSAR, {
      kind: 'SelfSubjectAccessReview',
      apiVersion: 'authorization.k8s.io/v1',
      spec: { resourceAttributes: { verb: 'get' }, nonResourceAttributes: { path: '/healthz', verb: 'get' } },
    });
    expect(both.status).toBe(422);
    expect(both.body.details).toMatchObject({
      group: 'authorization.k8s.io',
      kind: 'SelfSubjectAccessReview',
      causes: [{ reason: 'FieldValueInvalid', field: 'spec.nonResourceAttributes' }],
    });
  });

  it('reviews are create-only: GET on the collection is 405', async () => {
    const res = await sb.call('GET', SSAR);
    expect(res.status).toBe(405);
    expect(res.body.reason).toBe('MethodNotAllowed');
  });

  it('kubectl auth can-i --list prints the all-allowing rules (SelfSubjectRulesReview)', async () => {
    const out = await sb.kubectl(['auth', 'can-i', '--list', '-n', 'team']);
    expect(out.stderr).toBe('');
    const t = printedTable(out.stdout, ['Resources', 'Non-Resource URLs', 'Resource Names', 'Verbs']);
    expect(t.rows).toEqual([
      { Resources: '*.*', 'Non-Resource URLs': '[]', 'Resource Names': '[]', Verbs: '[*]' },
      { Resources: '', 'Non-Resource URLs': '[*]', 'Resource Names': '[]', Verbs: '[*]' },
    ]);
  });

  it('discovery lists authorization.k8s.io/v1 with create-only review resources (kubectl api-resources)', async () => {
    const out = await sb.kubectl(['api-resources', '--api-group=authorization.k8s.io', '-o', 'wide']);
    expect(out.code).toBe(0);
    expect(out.stdout).toMatch(
      /selfsubjectaccessreviews\s+authorization\.k8s\.io\/v1\s+false\s+SelfSubjectAccessReview\s+create/,
    );
    expect(out.stdout).toMatch(
      /selfsubjectrulesreviews\s+authorization\.k8s\.io\/v1\s+false\s+SelfSubjectRulesReview\s+create/,
    );
    const legacy = await sb.call('GET', '/apis/authorization.k8s.io/v1');
    expect(legacy.status).toBe(200);
    expect(legacy.body.groupVersion).toBe('authorization.k8s.io/v1');
  });
});
