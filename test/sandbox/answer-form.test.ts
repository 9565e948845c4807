/**
 * Answer forms, PartialObjectMetadata above all: `Accept: application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1`
 * gets an object's metadata only, on reads and writes alike; a list gets a
 * PartialObjectMetadataList; a plain JSON range first, or an unknown group, gets the whole object;
 * a Status stays a Status.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKubeClient } from '../../src/kube/clients.ts';
import { answerForm } from '../../src/sandbox/answer-form.ts';
import { APPLY, deployment, type Sandbox, startSandbox } from './helpers.ts';

const PARTIAL = 'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1';
const PARTIAL_LIST = 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1';
const PATH = '/apis/apps/v1/namespaces/default/deployments';

describe('PartialObjectMetadata answers', () => {
  let sb: Sandbox;
  beforeAll(async () => {
    sb = await startSandbox();
  });
  afterAll(async () => {
    await sb.close();
  });

  it('an apply answered as metadata: the new resourceVersion, generation and managedFields, no spec', async () => {
    const res = await sb.call('PATCH', `${PATH}/pm1?fieldManager=t`, deployment('pm1'), {
      ...APPLY,
      accept: `${PARTIAL},application/json`,
    });
    expect(res.status).toBe(201);
    expect(res.body.kind).toBe('PartialObjectMetadata');
    expect(res.body.apiVersion).toBe('meta.k8s.io/v1');
    expect(res.body.spec).toBeUndefined();
    expect(res.body.status).toBeUndefined();
    const meta = res.body.metadata as Record<string, unknown>;
    const stored = sb.api.getObject('apps/v1', 'Deployment', 'default', 'pm1');
    expect(meta.name).toBe('pm1');
    expect(meta.generation).toBe(1);
    // The controller may have written status since; the apply's own fields are the same.
    expect(meta.uid).toBe(stored?.metadata?.uid);
    expect(Number(meta.resourceVersion)).toBeLessThanOrEqual(Number(stored?.metadata?.resourceVersion));
    const applied = (meta.managedFields as Array<Record<string, unknown>>).find((m) => m.manager === 't');
    expect(applied).toMatchObject({ operation: 'Apply', fieldsType: 'FieldsV1' });
    expect(Object.keys(applied?.fieldsV1 as object)).toContain('f:spec');
    // The object itself is stored whole.
    expect(stored?.spec).toBeDefined();
  });

  it('a watch in metadata form: each event carries a PartialObjectMetadata', async () => {
    const kube = createKubeClient(sb.api.kubeconfig);
    const lines: Array<{ type: string; object: Record<string, unknown> }> = [];
    await kube.watch(
      { path: `${PATH}?watch=1&resourceVersion=0&timeoutSeconds=1`, accept: PARTIAL },
      (line) => lines.push(JSON.parse(line)),
      10_000,
    );
    await kube.close();
    const added = lines.find(
      (l) => l.type === 'ADDED' && (l.object.metadata as { name?: string }).name === 'pm1',
    );
    expect(added?.object.kind).toBe('PartialObjectMetadata');
    expect(added?.object.spec).toBeUndefined();
  });

  it('a get and a list in metadata form; the list keeps its own metadata', async () => {
    const one = await sb.call('GET', `${PATH}/pm1`, undefined, { accept: PARTIAL });
    expect(one.body).toMatchObject({ kind: 'PartialObjectMetadata', metadata: { name: 'pm1' } });
    expect(one.body.spec).toBeUndefined();
    const list = await sb.call('GET', PATH, undefined, { accept: PARTIAL_LIST });
    expect(list.body.kind).toBe('PartialObjectMetadataList');
    expect((list.body.metadata as { resourceVersion?: string }).resourceVersion).toMatch(/^\d+$/);
    const items = list.body.items as Array<Record<string, unknown>>;
    expect(items.map((i) => (i.metadata as { name: string }).name)).toContain('pm1');
    for (const item of items) {
      expect(item.kind).toBe('PartialObjectMetadata');
      expect(item.spec).toBeUndefined();
    }
  });

  it('a plain JSON range first, or another group, gets the whole object', async () => {
    const plainFirst = await sb.call('GET', `${PATH}/pm1`, undefined, {
      accept: `application/json,${PARTIAL}`,
    });
    expect(plainFirst.body.kind).toBe('Deployment');
    expect(plainFirst.body.spec).toBeDefined();
    const otherGroup = await sb.call('GET', `${PATH}/pm1`, undefined, {
      accept: 'application/json;as=PartialObjectMetadata;g=example.com;v=v1,application/json',
    });
    expect(otherGroup.body.kind).toBe('Deployment');
  });

  it('an error answers with its Status whatever was asked for', async () => {
    const res = await sb.call('GET', `${PATH}/missing`, undefined, { accept: PARTIAL });
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ kind: 'Status', reason: 'NotFound' });
  });

  it('negotiation: the first JSON range the server serves decides', () => {
    expect(answerForm(undefined)).toBe('Object');
    expect(answerForm('application/json')).toBe('Object');
    expect(answerForm(PARTIAL)).toBe('PartialObjectMetadata');
    expect(answerForm(`application/json;as=Table;g=meta.k8s.io;v=v9,${PARTIAL}`)).toBe(
      'PartialObjectMetadata',
    );
    expect(answerForm('application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v2')).toBe('Object');
    expect(answerForm(`application/yaml,${PARTIAL_LIST}`)).toBe('PartialObjectMetadata');
    expect(answerForm(`*/*,${PARTIAL}`)).toBe('Object');
    // What kubectl get sends.
    expect(
      answerForm(
        'application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json',
      ),
    ).toBe('Table');
  });
});
