/**
 * A Deployment's revision and generation, as kube-apiserver and kube-controller-manager keep them:
 * - the controller writes `deployment.kubernetes.io/revision` on the Deployment with its status
 *   (UpdateStatus), so it owns the annotation under the status subresource and the generation does
 *   not move; a template that comes back (a rollback) becomes the newest revision again;
 * - on the main resource a Deployment's generation moves with its spec and with its annotations
 *   (deploymentStrategy.PrepareForUpdate), not with its labels;
 * - a status write may change a Deployment's annotations, never its spec or labels
 *   (deploymentStatusStrategy resets those).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deployment, eventually, type Json, MERGE, type Sandbox, startSandbox } from './helpers.ts';

const D = '/apis/apps/v1/namespaces/default/deployments';
const RS = '/apis/apps/v1/namespaces/default/replicasets';
const REVISION = 'deployment.kubernetes.io/revision';

let sb: Sandbox;
beforeAll(async () => {
  sb = await startSandbox();
});
afterAll(async () => {
  await sb.close();
});

const get = async (name: string): Promise<Json> => (await sb.call('GET', `${D}/${name}`)).body;
const image = (tag: string) => ({
  spec: { template: { spec: { containers: [{ name: 'app', image: `nginx:${tag}` }] } } },
});
/** The Deployment once the controller has set `revision` on it. */
const atRevision = (name: string, revision: string) =>
  eventually(async () => {
    const d = await get(name);
    return d.metadata.annotations?.[REVISION] === revision ? d : undefined;
  });
const replicaSetRevisions = async (name: string): Promise<Record<string, string>> => {
  const res = await sb.call('GET', `${RS}?labelSelector=app%3D${name}`);
  return Object.fromEntries(
    (res.body.items as Json[]).map((rs) => [
      rs.spec.template.spec.containers[0].image,
      rs.metadata.annotations[REVISION],
    ]),
  );
};

describe('Deployment revision and generation', () => {
  it('the controller sets the revision with the status: it owns the annotation there, and the generation stays', async () => {
    await sb.call('POST', D, deployment('rev', 'default', { image: 'nginx:1' }));
    const d = await atRevision('rev', '1');
    expect(d.metadata.generation).toBe(1);
    expect(d.status.observedGeneration).toBe(1);
    const entry = (d.metadata.managedFields as Json[]).find(
      (m) => m.manager === 'kube-controller-manager' && m.subresource === 'status',
    );
    expect(entry?.operation).toBe('Update');
    expect(entry?.fieldsV1['f:metadata']['f:annotations']).toHaveProperty(`f:${REVISION}`);
    expect(entry?.fieldsV1).toHaveProperty('f:status');
    expect(await replicaSetRevisions('rev')).toEqual({ 'nginx:1': '1' });
  });

  it('each new template is the next revision, and a template that comes back becomes the newest', async () => {
    await sb.call('PATCH', `${D}/rev`, image('2'), MERGE);
    expect((await atRevision('rev', '2'))?.metadata.generation).toBe(2);
    await sb.call('PATCH', `${D}/rev`, image('1'), MERGE);
    expect((await atRevision('rev', '3'))?.metadata.generation).toBe(3);
    expect(await replicaSetRevisions('rev')).toEqual({ 'nginx:1': '3', 'nginx:2': '2' });
  });

  it('on the main resource, annotations move the generation and labels do not', async () => {
    await sb.call('POST', D, deployment('gen', 'default'));
    await atRevision('gen', '1');
    await sb.call('PATCH', `${D}/gen`, { metadata: { labels: { team: 'a' } } }, MERGE);
    expect((await get('gen')).metadata.generation).toBe(1);
    await sb.call('PATCH', `${D}/gen`, { metadata: { annotations: { note: 'x' } } }, MERGE);
    expect((await get('gen')).metadata.generation).toBe(2);
    // The same annotations again: nothing moves.
    await sb.call('PATCH', `${D}/gen`, { metadata: { annotations: { note: 'x' } } }, MERGE);
    expect((await get('gen')).metadata.generation).toBe(2);
  });

  it('a status write may change annotations, not spec or labels, and leaves the generation', async () => {
    await sb.call('POST', D, deployment('st', 'default', { replicas: 2 }));
    const before = await atRevision('st', '1');
    const res = await sb.call(
      'PATCH',
      `${D}/st/status`,
      {
        metadata: { labels: { team: 'b' }, annotations: { 'example.com/checked': 'yes' } },
        spec: { replicas: 5 },
        status: { replicas: 2 },
      },
      MERGE,
    );
    expect(res.status).toBe(200);
    const after = await get('st');
    expect(after.metadata.annotations).toMatchObject({ 'example.com/checked': 'yes', [REVISION]: '1' });
    expect(after.metadata.labels).toEqual(before.metadata.labels);
    expect(after.spec.replicas).toBe(2);
    expect(after.metadata.generation).toBe(before.metadata.generation);
    const entry = (after.metadata.managedFields as Json[]).find(
      (m) => m.manager !== 'kube-controller-manager' && m.subresource === 'status',
    );
    expect(entry?.fieldsV1['f:metadata']['f:annotations']).toHaveProperty('f:example.com/checked');
  });
});
