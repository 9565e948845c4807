/**
 * A StatefulSet's containers mount the volumes its claim templates make: kube-apiserver accepts a
 * mount naming a claim template though the pod template lists no such volume, and refuses one
 * naming neither (regression: every bundled Postgres the agent renders was refused).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Json, type Sandbox, startSandbox } from '../helpers.ts';

const STS = '/apis/apps/v1/namespaces/default/statefulsets';

function statefulSet(name: string, mount: string): Json {
  const labels = { app: name };
  return {
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: { name },
    spec: {
      serviceName: name,
      selector: { matchLabels: labels },
      template: {
        metadata: { labels },
        spec: {
          containers: [
            { name: 'db', image: 'postgres:17', volumeMounts: [{ name: mount, mountPath: '/data' }] },
          ],
        },
      },
      volumeClaimTemplates: [
        {
          metadata: { name: 'data' },
          spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
        },
      ],
    },
  };
}

describe('StatefulSet volume mounts and claim templates', () => {
  let sb: Sandbox;
  beforeAll(async () => {
    sb = await startSandbox();
  });
  afterAll(async () => {
    await sb.close();
  });

  it('a mount naming a claim template is accepted', async () => {
    expect((await sb.call('POST', STS, statefulSet('db', 'data'))).status).toBe(201);
  });

  it('a mount naming no volume and no claim template is refused as not found', async () => {
    const res = await sb.call('POST', STS, statefulSet('other', 'nowhere'));
    expect(res.status).toBe(422);
    expect((res.body.details as Json).causes).toEqual([
      {
        reason: 'FieldValueNotFound',
        field: 'spec.template.spec.containers[0].volumeMounts[0].name',
        message: 'Not found: "nowhere"',
      },
    ]);
  });
});
