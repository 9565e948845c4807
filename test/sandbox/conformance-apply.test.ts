/**
 * Server-side apply conformance: each test names the documented Kubernetes behaviour it checks
 * (https://kubernetes.io/docs/reference/using-api/server-side-apply/).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APPLY, deployment, eventually, managers, type Sandbox, startSandbox } from './helpers.ts';

const DEPLOY = '/apis/apps/v1/namespaces/default/deployments';

describe('server-side apply conformance', () => {
  let sb: Sandbox;
  beforeAll(async () => {
    sb = await startSandbox();
  });
  afterAll(async () => {
    await sb.close();
  });
  const applyAs = (manager: string, name: string, body: unknown, extra = '') =>
    sb.call('PATCH', `${DEPLOY}/${name}?fieldManager=${manager}${extra}`, body, APPLY);

  it('create by apply: an apply to a missing object creates it (201) and records an Apply manager', async () => {
    const res = await applyAs('mooring', 'c1', deployment('c1'));
    expect(res.status).toBe(201);
    expect(managers(res.body)).toContain('mooring/Apply');
    expect((res.body.metadata as { uid: string }).uid).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('a no-op apply changes nothing: same resourceVersion, no watch event', async () => {
    await applyAs('mooring', 'c2', deployment('c2'));
    // Wait for the simulated controller's status write, so only the apply could change anything.
    const live = await eventually(() => {
      const obj = sb.api.getObject('apps/v1', 'Deployment', 'default', 'c2');
      return obj?.status ? obj : undefined;
    });
    const settled = live?.metadata?.resourceVersion;
    const again = await applyAs('mooring', 'c2', deployment('c2'));
    expect(again.status).toBe(200);
    expect((again.body.metadata as { resourceVersion: string }).resourceVersion).toBe(settled);
    const watch = await sb.call(
      'GET',
      `${DEPLOY}?watch=true&resourceVersion=${settled}&timeoutSeconds=1&fieldSelector=metadata.name=c2`,
    );
    expect(watch.body).toEqual({}); // no event after the settled version
  });

  it('apply requires a fieldManager (422 Invalid)', async () => {
    const res = await sb.call('PATCH', `${DEPLOY}/c3`, deployment('c3'), APPLY);
    expect(res.status).toBe(422);
    expect(res.body.message).toContain('fieldManager: Required value: is required for apply patch');
  });

  it('conflicts: applying a different value for a field another applier owns is a 409 naming the field', async () => {
    await applyAs('alpha', 'c4', deployment('c4', 'default', { replicas: 1 }));
    const res = await applyAs('beta', 'c4', deployment('c4', 'default', { replicas: 3 }));
    expect(res.status).toBe(409);
    expect(res.body.reason).toBe('Conflict');
    expect(res.body.message).toBe('Apply failed with 1 conflict: conflict with "alpha": .spec.replicas');
    expect((res.body.details as { causes: unknown[] }).causes).toEqual([
      { reason: 'FieldManagerConflict', message: 'conflict with "alpha"', field: '.spec.replicas' },
    ]);
  });

  it('forced apply transfers ownership: force=true takes the field from the other manager', async () => {
    const res = await applyAs('beta', 'c4', deployment('c4', 'default', { replicas: 3 }), '&force=true');
    expect(res.status).toBe(200);
    expect((res.body.spec as { replicas: number }).replicas).toBe(3);
    const entries = (
      res.body.metadata as {
        managedFields: { manager: string; fieldsV1: { 'f:spec'?: Record<string, unknown> } }[];
      }
    ).managedFields;
    const alpha = entries.find((e) => e.manager === 'alpha');
    expect(alpha?.fieldsV1['f:spec']?.['f:replicas']).toBeUndefined();
    expect(entries.find((e) => e.manager === 'beta')?.fieldsV1['f:spec']?.['f:replicas']).toEqual({});
  });

  it('shared ownership: a second applier sending the same value co-owns the field without conflict', async () => {
    await applyAs('one', 'c5', deployment('c5', 'default', { replicas: 2 }));
    const res = await applyAs('two', 'c5', deployment('c5', 'default', { replicas: 2 }));
    expect(res.status).toBe(200);
    expect(managers(res.body)).toEqual(expect.arrayContaining(['one/Apply', 'two/Apply']));
  });

  it('a field a manager stops applying is removed when no one else owns it', async () => {
    const withLabel = deployment('c6');
    (withLabel.metadata as { labels: Record<string, string> }).labels.extra = 'yes';
    await applyAs('mooring', 'c6', withLabel);
    const res = await applyAs('mooring', 'c6', deployment('c6'));
    expect((res.body.metadata as { labels: Record<string, string> }).labels).toEqual({ app: 'c6' });
  });

  it('a field a manager stops applying stays when another manager still owns it', async () => {
    const withLabel = deployment('c7');
    (withLabel.metadata as { labels: Record<string, string> }).labels.shared = 'yes';
    await applyAs('one', 'c7', withLabel);
    await applyAs('two', 'c7', withLabel);
    const res = await applyAs('one', 'c7', deployment('c7'));
    expect((res.body.metadata as { labels: Record<string, string> }).labels.shared).toBe('yes');
  });

  it('associative lists merge by key: containers applied by two managers are both kept', async () => {
    await applyAs('one', 'c8', deployment('c8'));
    const sidecar = deployment('c8');
    const podSpec = (sidecar.spec as { template: { spec: { containers: unknown[] } } }).template.spec;
    podSpec.containers = [{ name: 'sidecar', image: 'busybox:1.36' }];
    const res = await applyAs('two', 'c8', sidecar);
    expect(res.status).toBe(200);
    const names = (
      res.body.spec as { template: { spec: { containers: { name: string }[] } } }
    ).template.spec.containers.map((c) => c.name);
    expect(names.sort()).toEqual(['app', 'sidecar']);
  });

  it('dry run (dryRun=All) validates and answers the result but writes nothing', async () => {
    const res = await applyAs('mooring', 'c9', deployment('c9'), '&dryRun=All');
    expect(res.status).toBe(201);
    expect(sb.api.getObject('apps/v1', 'Deployment', 'default', 'c9')).toBeUndefined();
    expect(sb.api.requests({ name: 'c9' }).at(-1)?.dryRun).toBe(true);
  });

  it('apply of an invalid object is 422 with causes (kubernetes-models schema)', async () => {
    const bad = deployment('c10');
    delete (bad.spec as Record<string, unknown>).selector;
    const res = await applyAs('mooring', 'c10', bad);
    expect(res.status).toBe(422);
    expect(res.body.reason).toBe('Invalid');
    expect((res.body.details as { causes: unknown[] }).causes).toContainEqual({
      reason: 'FieldValueRequired',
      message: 'Required value',
      field: 'spec.selector',
    });
  });

  it('apply with fieldValidation=Strict rejects unknown fields (400), Ignore drops them', async () => {
    const bad = deployment('c11');
    (bad.spec as Record<string, unknown>).bogus = 1;
    const strict = await applyAs('mooring', 'c11', bad, '&fieldValidation=Strict');
    expect(strict.status).toBe(400);
    expect(strict.body.message).toContain('.spec.bogus: field not declared in schema');
    const ignored = await applyAs('mooring', 'c11', bad, '&fieldValidation=Ignore');
    expect(ignored.status).toBe(201);
    expect((ignored.body.spec as Record<string, unknown>).bogus).toBeUndefined();
  });

  it('an apply body may be YAML (application/apply-patch+yaml)', async () => {
    const yaml = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: y1\ndata:\n  a: "1"\n';
    const res = await sb.call(
      'PATCH',
      '/api/v1/namespaces/default/configmaps/y1?fieldManager=m',
      yaml,
      APPLY,
    );
    expect(res.status).toBe(201);
    expect(res.body.data).toEqual({ a: '1' });
  });

  it('a resourceVersion in the applied configuration is a precondition (409 when stale)', async () => {
    const first = await applyAs('mooring', 'c13', deployment('c13'));
    const stale = deployment('c13', 'default', { replicas: 2 });
    (stale.metadata as Record<string, unknown>).resourceVersion = '1';
    expect((await applyAs('mooring', 'c13', stale)).status).toBe(409);
    // After the simulated controller's status write, nothing else changes the object.
    const settled = await eventually(
      () =>
        sb.api.getObject('apps/v1', 'Deployment', 'default', 'c13')?.status &&
        sb.api.getObject('apps/v1', 'Deployment', 'default', 'c13'),
    );
    const current = settled
      ? (settled as { metadata?: { resourceVersion?: string } }).metadata?.resourceVersion
      : undefined;
    (stale.metadata as Record<string, unknown>).resourceVersion = current;
    expect(first.status).toBe(201);
    expect((await applyAs('mooring', 'c13', stale)).status).toBe(200);
  });

  it('an apply whose name differs from the URL is a 400', async () => {
    const res = await applyAs('mooring', 'other-name', deployment('c12'));
    expect(res.status).toBe(400);
  });
});
