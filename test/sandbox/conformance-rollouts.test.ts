/**
 * Deployment rollouts through real kubectl, as the Deployment controller does them: a paused
 * Deployment makes no new ReplicaSet until resumed, `rollout undo` reuses the old ReplicaSet with
 * the next revision, `rollout history` reads the revisions, and the pod-template hash does not
 * depend on the order of keys in the template.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, manifest, type Sandbox, startSandbox } from './helpers.ts';

const WEB = `apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: apps}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - {name: app, image: "nginx:1.27"}
`;

type Rs = {
  metadata: { name: string; labels: Record<string, string>; annotations: Record<string, string> };
  spec: { replicas: number };
};

describe('Deployment rollouts through real kubectl', () => {
  let sb: Sandbox;
  beforeAll(async () => {
    sb = await startSandbox({ namespaces: ['apps'] });
  });
  afterAll(async () => {
    await sb.close();
  });

  const replicaSets = async (): Promise<Rs[]> => {
    const out = await sb.kubectl(['get', 'replicasets', '-n', 'apps', '-l', 'app=web', '-o', 'json']);
    return (JSON.parse(out.stdout).items as Rs[]).sort(
      (a, b) =>
        Number(a.metadata.annotations['deployment.kubernetes.io/revision']) -
        Number(b.metadata.annotations['deployment.kubernetes.io/revision']),
    );
  };
  const revisions = async () =>
    (await replicaSets()).map((rs) => [
      rs.metadata.labels['pod-template-hash'],
      rs.metadata.annotations['deployment.kubernetes.io/revision'],
      rs.spec.replicas,
    ]);
  const image = async () =>
    (
      await sb.kubectl([
        'get',
        'deployment',
        'web',
        '-n',
        'apps',
        '-o',
        'jsonpath={.spec.template.spec.containers[0].image}',
      ])
    ).stdout;

  it('rollout undo reuses the old ReplicaSet with the next revision; history lists and shows revisions', async () => {
    expect((await sb.kubectl(['apply', '--server-side', '-f', manifest(sb, 'web.yaml', WEB)])).code).toBe(0);
    await eventually(async () => (await replicaSets()).length === 1);
    expect((await sb.kubectl(['set', 'image', 'deployment/web', '-n', 'apps', 'app=nginx:1.28'])).code).toBe(
      0,
    );
    const two = await eventually(async () => {
      const r = await revisions();
      return r.length === 2 && r[0]?.[2] === 0 ? r : undefined;
    });
    const [first, second] = two ?? [];
    expect(first?.[1]).toBe('1');
    expect(second?.[1]).toBe('2');

    const undo = await sb.kubectl(['rollout', 'undo', 'deployment/web', '-n', 'apps']);
    expect(undo.stdout.trim()).toBe('deployment.apps/web rolled back');
    expect(await image()).toBe('nginx:1.27');
    // The first ReplicaSet is back at full size as revision 3; no third ReplicaSet.
    const after = await eventually(async () => {
      const r = await revisions();
      return r.length === 2 && r[1]?.[0] === first?.[0] && r[1]?.[2] === 2 ? r : undefined;
    });
    expect(after).toEqual([
      [second?.[0], '2', 0],
      [first?.[0], '3', 2],
    ]);

    const history = await sb.kubectl(['rollout', 'history', 'deployment/web', '-n', 'apps']);
    expect(history.code).toBe(0);
    expect(history.stdout.split('\n').map((l) => l.trim().split(/\s+/)[0])).toEqual(
      expect.arrayContaining(['REVISION', '2', '3']),
    );
    expect(history.stdout).not.toMatch(/^1\s/m);
    const shown = await sb.kubectl(['rollout', 'history', 'deployment/web', '-n', 'apps', '--revision=2']);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain('deployment.apps/web with revision #2');
    expect(shown.stdout).toContain('nginx:1.28');
    expect(shown.stdout).toContain(`pod-template-hash=${second?.[0]}`);
  });

  it('a paused Deployment makes no new ReplicaSet and says DeploymentPaused until resumed', async () => {
    expect((await sb.kubectl(['rollout', 'pause', 'deployment/web', '-n', 'apps'])).stdout.trim()).toBe(
      'deployment.apps/web paused',
    );
    expect((await sb.kubectl(['set', 'image', 'deployment/web', '-n', 'apps', 'app=nginx:1.29'])).code).toBe(
      0,
    );
    const paused = await eventually(async () => {
      const d = JSON.parse(
        (await sb.kubectl(['get', 'deployment', 'web', '-n', 'apps', '-o', 'json'])).stdout,
      );
      return d.status.observedGeneration === d.metadata.generation ? d : undefined;
    });
    const progressing = paused.status.conditions.find((c: { type: string }) => c.type === 'Progressing');
    expect(progressing).toMatchObject({
      status: 'Unknown',
      reason: 'DeploymentPaused',
      message: 'Deployment is paused',
    });
    expect(paused.status.updatedReplicas ?? 0).toBe(0);
    expect(paused.metadata.annotations['deployment.kubernetes.io/revision']).toBe('3');
    expect(await revisions()).toHaveLength(2);

    expect((await sb.kubectl(['rollout', 'resume', 'deployment/web', '-n', 'apps'])).stdout.trim()).toBe(
      'deployment.apps/web resumed',
    );
    const resumed = await eventually(async () => {
      const r = await revisions();
      return r.length === 3 ? r : undefined;
    });
    expect(resumed?.[2]?.[1]).toBe('4');
    const status = await sb.kubectl(['rollout', 'status', 'deployment/web', '-n', 'apps', '--timeout=10s']);
    expect(status.stdout).toContain('successfully rolled out');
  });

  it('the pod-template hash does not depend on the order of keys in the template', async () => {
    const container = (order: 'ab' | 'ba') =>
      order === 'ab'
        ? { name: 'app', image: 'nginx:1.27', ports: [{ containerPort: 80, protocol: 'TCP' }] }
        : { ports: [{ protocol: 'TCP', containerPort: 80 }], image: 'nginx:1.27', name: 'app' };
    for (const [name, order] of [
      ['one', 'ab'],
      ['two', 'ba'],
    ] as const) {
      const template =
        order === 'ab'
          ? { metadata: { labels: { app: name, tier: 'x' } }, spec: { containers: [container(order)] } }
          : { spec: { containers: [container(order)] }, metadata: { labels: { tier: 'x', app: name } } };
      const body = { metadata: { name }, spec: { selector: { matchLabels: { app: name } }, template } };
      expect((await sb.call('POST', '/apis/apps/v1/namespaces/apps/deployments', body)).status).toBe(201);
    }
    const hashes = await eventually(async () => {
      const out = await sb.kubectl(['get', 'replicasets', '-n', 'apps', '-l', 'tier=x', '-o', 'json']);
      const items = JSON.parse(out.stdout).items as Rs[];
      return items.length === 2 ? items.map((rs) => rs.metadata.labels['pod-template-hash']) : undefined;
    });
    // The templates differ only in the app label; with it the same, the hash is the same.
    expect(hashes?.[0]).not.toBe(hashes?.[1]);
    const same = {
      metadata: { name: 'three' },
      spec: {
        selector: { matchLabels: { app: 'one' } },
        template: {
          spec: { containers: [container('ba')] },
          metadata: { labels: { tier: 'y', app: 'one' } },
        },
      },
    };
    expect((await sb.call('POST', '/apis/apps/v1/namespaces/apps/deployments', same)).status).toBe(201);
    const reordered = {
      metadata: { name: 'four' },
      spec: {
        selector: { matchLabels: { app: 'one' } },
        template: {
          metadata: { labels: { app: 'one', tier: 'y' } },
          spec: { containers: [container('ab')] },
        },
      },
    };
    expect((await sb.call('POST', '/apis/apps/v1/namespaces/apps/deployments', reordered)).status).toBe(201);
    const pair = await eventually(async () => {
      const out = await sb.kubectl(['get', 'replicasets', '-n', 'apps', '-l', 'tier=y', '-o', 'json']);
      const items = JSON.parse(out.stdout).items as Rs[];
      return items.length === 2 ? items.map((rs) => rs.metadata.labels['pod-template-hash']) : undefined;
    });
    expect(pair?.[0]).toBe(pair?.[1]);
  });

  it('StatefulSets keep ControllerRevisions: rollout history and undo sts work', async () => {
    const set = `apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db, namespace: apps}
spec:
  serviceName: db
  replicas: 1
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec:
      containers:
      - {name: db, image: "postgres:16"}
`;
    expect((await sb.kubectl(['apply', '--server-side', '-f', manifest(sb, 'db.yaml', set)])).code).toBe(0);
    expect((await sb.kubectl(['set', 'image', 'statefulset/db', '-n', 'apps', 'db=postgres:17'])).code).toBe(
      0,
    );
    type Cr = {
      metadata: { name: string; ownerReferences: { kind: string; name: string }[] };
      revision: number;
    };
    const list = async () => {
      const out = await sb.kubectl([
        'get',
        'controllerrevisions',
        '-n',
        'apps',
        '-l',
        'app=db',
        '-o',
        'json',
      ]);
      return (JSON.parse(out.stdout).items as Cr[]).sort((a, b) => a.revision - b.revision);
    };
    const two = await eventually(async () => ((await list()).length === 2 ? list() : undefined));
    expect(two?.map((r) => r.revision)).toEqual([1, 2]);
    expect(two?.every((r) => r.metadata.name.startsWith('db-'))).toBe(true);
    expect(two?.[0]?.metadata.ownerReferences[0]).toMatchObject({ kind: 'StatefulSet', name: 'db' });
    const sts = await eventually(async () => {
      const d = JSON.parse((await sb.kubectl(['get', 'sts', 'db', '-n', 'apps', '-o', 'json'])).stdout);
      return d.status.observedGeneration === d.metadata.generation ? d : undefined;
    });
    expect(sts.status.currentRevision).toBe(two?.[1]?.metadata.name);
    expect(sts.status.updateRevision).toBe(two?.[1]?.metadata.name);

    const history = await sb.kubectl(['rollout', 'history', 'sts/db', '-n', 'apps']);
    expect(history.code).toBe(0);
    expect(history.stdout.split('\n').map((l) => l.trim().split(/\s+/)[0])).toEqual(
      expect.arrayContaining(['REVISION', '1', '2']),
    );
    const shown = await sb.kubectl(['rollout', 'history', 'sts/db', '-n', 'apps', '--revision=1']);
    expect(shown.stdout).toContain('postgres:16');

    const undo = await sb.kubectl(['rollout', 'undo', 'sts/db', '-n', 'apps']);
    expect(undo.stdout.trim()).toBe('statefulset.apps/db rolled back');
    const image = await sb.kubectl([
      'get',
      'sts',
      'db',
      '-n',
      'apps',
      '-o',
      'jsonpath={.spec.template.spec.containers[0].image}',
    ]);
    expect(image.stdout).toBe('postgres:16');
    // The first revision is reused as revision 3: still two ControllerRevisions.
    const after = await eventually(async () => {
      const r = await list();
      return r.some((x) => x.revision === 3) ? r : undefined;
    });
    expect(after?.map((r) => [r.metadata.name, r.revision])).toEqual([
      [two?.[1]?.metadata.name, 2],
      [two?.[0]?.metadata.name, 3],
    ]);
  });
});
