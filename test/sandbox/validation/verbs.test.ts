/**
 * The same validation on every write verb: update, merge / JSON / strategic patch, server-side
 * apply and dry-run all answer the 422 a real API server gives, and store nothing. Also the update
 * rules: a Secret's type and a Deployment's selector may not change.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APPLY, deployment, JSON_PATCH, type Json, MERGE, type Sandbox, startSandbox } from '../helpers.ts';
import { DEPLOY, PDB, SECRET } from './cases.ts';

const ZERO_CAUSE = {
  reason: 'FieldValueInvalid',
  field: 'spec.strategy.rollingUpdate.maxUnavailable',
  message: 'Invalid value: 0: may not be 0 when `maxSurge` is 0',
};
const ZERO_MESSAGE = `Deployment.apps "web" is invalid: ${ZERO_CAUSE.field}: ${ZERO_CAUSE.message}`;
const STRATEGIC = { 'content-type': 'application/strategic-merge-patch+json' };

describe('validation applies to every write verb', () => {
  let sb: Sandbox;
  beforeAll(async () => {
    sb = await startSandbox();
    const res = await sb.call('POST', DEPLOY, deployment('web'));
    expect(res.status).toBe(201);
  });
  afterAll(async () => {
    await sb.close();
  });

  const zero = { spec: { strategy: { rollingUpdate: { maxSurge: 0, maxUnavailable: 0 } } } };

  async function expectZeroRefused(res: { status: number; body: Json }): Promise<void> {
    expect(res.status).toBe(422);
    expect(res.body.message).toBe(ZERO_MESSAGE);
    expect((res.body.details as Json).causes).toEqual([ZERO_CAUSE]);
    // Nothing stored: the controller may write status meanwhile, but the strategy is the default.
    const live = await sb.call('GET', `${DEPLOY}/web`);
    expect((live.body.spec as Json).strategy.rollingUpdate).toEqual({
      maxSurge: '25%',
      maxUnavailable: '25%',
    });
  }

  it('update (PUT)', async () => {
    const live = (await sb.call('GET', `${DEPLOY}/web`)).body as Json;
    live.spec.strategy = { type: 'RollingUpdate', rollingUpdate: { maxSurge: 0, maxUnavailable: 0 } };
    await expectZeroRefused(await sb.call('PUT', `${DEPLOY}/web`, live));
  });

  it('merge patch', async () => {
    await expectZeroRefused(await sb.call('PATCH', `${DEPLOY}/web`, zero, MERGE));
  });

  it('JSON patch', async () => {
    const ops = [
      { op: 'replace', path: '/spec/strategy/rollingUpdate/maxSurge', value: 0 },
      { op: 'replace', path: '/spec/strategy/rollingUpdate/maxUnavailable', value: 0 },
    ];
    await expectZeroRefused(await sb.call('PATCH', `${DEPLOY}/web`, ops, JSON_PATCH));
  });

  it('strategic merge patch', async () => {
    await expectZeroRefused(await sb.call('PATCH', `${DEPLOY}/web`, zero, STRATEGIC));
  });

  it('server-side apply', async () => {
    const body = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' }, ...zero };
    await expectZeroRefused(await sb.call('PATCH', `${DEPLOY}/web?fieldManager=t&force=true`, body, APPLY));
  });

  it('dry-run patch and dry-run create', async () => {
    await expectZeroRefused(await sb.call('PATCH', `${DEPLOY}/web?dryRun=All`, zero, MERGE));
    const bad: Json = deployment('dry');
    bad.spec.template.spec.containers[0].ports = [{ containerPort: 70000 }];
    const res = await sb.call('POST', `${DEPLOY}?dryRun=All`, bad);
    expect(res.status).toBe(422);
    expect(res.body.message).toBe(
      'Deployment.apps "dry" is invalid: spec.template.spec.containers[0].ports[0].containerPort: Invalid value: 70000: must be between 1 and 65535, inclusive',
    );
  });

  it('a Deployment selector may not change (field is immutable, the new selector shown)', async () => {
    const res = await sb.call(
      'PATCH',
      `${DEPLOY}/web`,
      {
        spec: {
          selector: { matchLabels: { app: 'web2' } },
          template: { metadata: { labels: { app: 'web2' } } },
        },
      },
      MERGE,
    );
    expect(res.status).toBe(422);
    expect((res.body.details as Json).causes).toEqual([
      {
        reason: 'FieldValueInvalid',
        field: 'spec.selector',
        message: 'Invalid value: {"matchLabels":{"app":"web2"}}: field is immutable',
      },
    ]);
  });

  it("a Secret's type may not change", async () => {
    const created = await sb.call('POST', SECRET, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'creds' },
      type: 'Opaque',
      data: { 'tls.crt': 'eA==', 'tls.key': 'eA==' },
    });
    expect(created.status).toBe(201);
    const res = await sb.call('PATCH', `${SECRET}/creds`, { type: 'kubernetes.io/tls' }, MERGE);
    expect(res.status).toBe(422);
    expect(res.body.message).toBe(
      'Secret "creds" is invalid: type: Invalid value: "kubernetes.io/tls": field is immutable',
    );
    expect(res.body.details).toEqual({
      name: 'creds',
      kind: 'Secret',
      causes: [
        {
          reason: 'FieldValueInvalid',
          field: 'type',
          message: 'Invalid value: "kubernetes.io/tls": field is immutable',
        },
      ],
    });
  });

  it('a PodDisruptionBudget with both minAvailable and maxUnavailable', async () => {
    const res = await sb.call('POST', PDB, {
      apiVersion: 'policy/v1',
      kind: 'PodDisruptionBudget',
      metadata: { name: 'both' },
      spec: { minAvailable: 1, maxUnavailable: 1, selector: { matchLabels: { app: 'web' } } },
    });
    expect(res.status).toBe(422);
    const causes = (res.body.details as Json).causes as { reason: string; field: string; message: string }[];
    expect(causes).toHaveLength(1);
    expect(causes[0]).toMatchObject({ reason: 'FieldValueInvalid', field: 'spec' });
    // The bad value is the whole internal spec struct; its rendering is the server's, the detail is fixed.
    expect(causes[0]?.message).toMatch(
      /^Invalid value: .+: minAvailable and maxUnavailable cannot be both set$/,
    );
    expect(res.body.message).toMatch(/^PodDisruptionBudget\.policy "both" is invalid: spec: Invalid value: /);
  });
});
