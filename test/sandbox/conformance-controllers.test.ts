/**
 * What kube-controller-manager's Deployment and StatefulSet controllers do, through real kubectl
 * 1.34: their Events (`describe`, `get events`), change-cause carried to ReplicaSets for
 * `rollout history`, `revisionHistoryLimit`, a deleted or hand-scaled ReplicaSet put right, and
 * the StatefulSet update strategies (`partition`, `OnDelete`).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, type Json, manifest, type Sandbox, startSandbox } from './helpers.ts';

function deploymentYaml(
  name: string,
  image: string,
  extra: { cause?: string; history?: number } = {},
): string {
  return `apiVersion: apps/v1
kind: Deployment
metadata:
  name: ${name}
  namespace: ctl
  labels: {app: ${name}}
${extra.cause ? `  annotations: {kubernetes.io/change-cause: "${extra.cause}"}\n` : ''}spec:
  replicas: 2
${extra.history !== undefined ? `  revisionHistoryLimit: ${extra.history}\n` : ''}  selector: {matchLabels: {app: ${name}}}
  template:
    metadata: {labels: {app: ${name}}}
    spec: {containers: [{name: app, image: "${image}"}]}
`;
}

function statefulSetYaml(name: string, image: string, strategy: string): string {
  return `apiVersion: apps/v1
kind: StatefulSet
metadata: {name: ${name}, namespace: ctl}
spec:
  replicas: 3
  serviceName: ${name}
  updateStrategy: ${strategy}
  selector: {matchLabels: {app: ${name}}}
  template:
    metadata: {labels: {app: ${name}}}
    spec: {containers: [{name: app, image: "${image}"}]}
`;
}

describe('controllers as kube-controller-manager runs them, through real kubectl', () => {
  let sb: Sandbox;
  beforeAll(async () => {
    sb = await startSandbox({ namespaces: ['ctl'] });
  });
  afterAll(async () => {
    await sb.close();
  });

  const apply = async (name: string, text: string) => {
    const out = await sb.kubectl(['apply', '-f', manifest(sb, `${name}.yaml`, text)]);
    expect(out.stderr).toBe('');
    expect(
      (await sb.kubectl(['rollout', 'status', `deployment/${name.split('.')[0]}`, '-n', 'ctl'])).code,
    ).toBe(0);
  };
  const replicaSets = async (app: string): Promise<Json[]> =>
    JSON.parse((await sb.kubectl(['get', 'rs', '-n', 'ctl', '-l', `app=${app}`, '-o', 'json'])).stdout).items;

  it('kubectl describe deployment and get events show the ScalingReplicaSet Events', async () => {
    await apply('web', deploymentYaml('web', 'nginx:1.27'));
    await apply('web.2', deploymentYaml('web', 'nginx:1.28'));
    const [first, second] = (await replicaSets('web')).sort(
      (a, b) =>
        a.metadata.annotations['deployment.kubernetes.io/revision'] -
        b.metadata.annotations['deployment.kubernetes.io/revision'],
    );
    const described = await sb.kubectl(['describe', 'deployment', 'web', '-n', 'ctl']);
    const events = described.stdout.slice(described.stdout.indexOf('Events:'));
    expect(events).toMatch(/Type\s+Reason\s+Age\s+From\s+Message/);
    const rows = events
      .split('\n')
      .filter((l) => l.includes('ScalingReplicaSet'))
      .map((l) => l.trim().replace(/\s+\S+\s+deployment-controller\s+/, ' deployment-controller '));
    expect(rows).toEqual([
      `Normal  ScalingReplicaSet deployment-controller Scaled up replica set ${first.metadata.name} from 0 to 2`,
      `Normal  ScalingReplicaSet deployment-controller Scaled up replica set ${second.metadata.name} from 0 to 2`,
      `Normal  ScalingReplicaSet deployment-controller Scaled down replica set ${first.metadata.name} from 2 to 0`,
    ]);
    const listed = await sb.kubectl([
      'get',
      'events',
      '-n',
      'ctl',
      '--field-selector',
      'involvedObject.kind=Deployment,involvedObject.name=web',
      '-o',
      'json',
    ]);
    const items: Json[] = JSON.parse(listed.stdout).items;
    expect(items).toHaveLength(3);
    expect(items[0]).toMatchObject({
      type: 'Normal',
      reason: 'ScalingReplicaSet',
      count: 1,
      source: { component: 'deployment-controller' },
      reportingComponent: 'deployment-controller',
      involvedObject: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', namespace: 'ctl' },
    });
    expect(items[0].metadata.name).toMatch(/^web\.[0-9a-f]+$/);
  });

  it('rollout history shows CHANGE-CAUSE: the annotation is carried to the ReplicaSets', async () => {
    await apply('cause', deploymentYaml('cause', 'nginx:1.27', { cause: 'first release' }));
    await apply('cause.2', deploymentYaml('cause', 'nginx:1.28', { cause: 'bump nginx' }));
    const history = await sb.kubectl(['rollout', 'history', 'deployment/cause', '-n', 'ctl']);
    const lines = history.stdout
      .trim()
      .split('\n')
      .slice(1)
      .map((l) => l.trim().replace(/\s+/, ' '));
    expect(lines).toEqual(['REVISION CHANGE-CAUSE', '1 first release', '2 bump nginx']);
    const annotations = (await replicaSets('cause')).map((rs) => rs.metadata.annotations);
    expect(annotations.map((a) => a['kubernetes.io/change-cause']).sort()).toEqual([
      'bump nginx',
      'first release',
    ]);
    // last-applied-configuration stays on the Deployment: the controller skips it.
    expect(
      annotations.every((a) => a['kubectl.kubernetes.io/last-applied-configuration'] === undefined),
    ).toBe(true);
  });

  it('revisionHistoryLimit: old ReplicaSets beyond the limit are deleted, oldest first', async () => {
    for (const [i, image] of ['nginx:1.25', 'nginx:1.26', 'nginx:1.27', 'nginx:1.28'].entries())
      await apply(`hist.${i}`, deploymentYaml('hist', image, { history: 1 }));
    const left = await eventually(async () => {
      const sets = await replicaSets('hist');
      return sets.length === 2 ? sets : undefined;
    });
    expect(
      left?.map((rs: Json) => rs.metadata.annotations['deployment.kubernetes.io/revision']).sort(),
    ).toEqual(['3', '4']);
    const history = await sb.kubectl(['rollout', 'history', 'deployment/hist', '-n', 'ctl']);
    expect(history.stdout).not.toMatch(/^1\s/m);
    expect(history.stdout).toMatch(/^4\s/m);
  });

  it('a deleted ReplicaSet of a Deployment is brought back, a hand-scaled one is scaled back', async () => {
    await apply('keep', deploymentYaml('keep', 'nginx:1.27'));
    const [rs] = await replicaSets('keep');
    const name = rs.metadata.name;
    expect((await sb.kubectl(['delete', 'rs', name, '-n', 'ctl'])).code).toBe(0);
    const back = await eventually(async () =>
      (await replicaSets('keep')).find((r) => r.metadata.uid !== rs.metadata.uid),
    );
    expect(back?.metadata.name).toBe(name);
    expect(back?.spec.replicas).toBe(2);

    expect((await sb.kubectl(['scale', 'rs', name, '-n', 'ctl', '--replicas=5'])).code).toBe(0);
    const reverted = await eventually(async () => {
      const [r] = await replicaSets('keep');
      return r.spec.replicas === 2 && r.metadata.generation > back?.metadata.generation + 1 ? r : undefined;
    });
    expect(reverted?.spec.replicas).toBe(2);
    const events = await sb.kubectl([
      'get',
      'events',
      '-n',
      'ctl',
      '--field-selector',
      'involvedObject.name=keep',
      '-o',
      'jsonpath={range .items[*]}{.message}{"\\n"}{end}',
    ]);
    expect(events.stdout.trim().split('\n')).toEqual([
      `Scaled up replica set ${name} from 0 to 2`,
      `Scaled up replica set ${name} from 0 to 2`,
      `Scaled down replica set ${name} from 5 to 2`,
    ]);
  });

  const status = async (name: string): Promise<Json> =>
    JSON.parse((await sb.kubectl(['get', 'sts', name, '-n', 'ctl', '-o', 'json'])).stdout).status;

  it('StatefulSet RollingUpdate partition: only ordinals at or above it are updated', async () => {
    const strategy = '{type: RollingUpdate, rollingUpdate: {partition: 2}}';
    expect(
      (
        await sb.kubectl([
          'apply',
          '-f',
          manifest(sb, 'part.yaml', statefulSetYaml('part', 'nginx:1.27', strategy)),
        ])
      ).code,
    ).toBe(0);
    const first = await eventually(async () => {
      const s = await status('part');
      return s.observedGeneration === 1 ? s : undefined;
    });
    expect(first.currentRevision).toBe(first.updateRevision);
    expect(
      (
        await sb.kubectl([
          'apply',
          '-f',
          manifest(sb, 'part2.yaml', statefulSetYaml('part', 'nginx:1.28', strategy)),
        ])
      ).code,
    ).toBe(0);
    const next = await eventually(async () => {
      const s = await status('part');
      return s.observedGeneration === 2 ? s : undefined;
    });
    expect(next).toMatchObject({
      replicas: 3,
      readyReplicas: 3,
      currentReplicas: 2,
      updatedReplicas: 1,
      currentRevision: first.currentRevision,
    });
    expect(next.updateRevision).not.toBe(first.updateRevision);
    const rollout = await sb.kubectl(['rollout', 'status', 'sts/part', '-n', 'ctl']);
    expect(rollout.stdout).toBe('partitioned roll out complete: 1 new pods have been updated...\n');

    // Partition 0 finishes the rollout: every pod at the update revision, which becomes current.
    const done = statefulSetYaml(
      'part',
      'nginx:1.28',
      '{type: RollingUpdate, rollingUpdate: {partition: 0}}',
    );
    expect((await sb.kubectl(['apply', '-f', manifest(sb, 'part3.yaml', done)])).code).toBe(0);
    const last = await eventually(async () => {
      const s = await status('part');
      return s.observedGeneration === 3 ? s : undefined;
    });
    expect(last).toMatchObject({
      currentReplicas: 3,
      updatedReplicas: 3,
      currentRevision: next.updateRevision,
    });
  });

  it('StatefulSet OnDelete: a new template updates no pod until pods are deleted', async () => {
    expect(
      (
        await sb.kubectl([
          'apply',
          '-f',
          manifest(sb, 'od.yaml', statefulSetYaml('od', 'nginx:1.27', '{type: OnDelete}')),
        ])
      ).code,
    ).toBe(0);
    const first = await eventually(async () => {
      const s = await status('od');
      return s.observedGeneration === 1 ? s : undefined;
    });
    expect(first).toMatchObject({ currentReplicas: 3, updatedReplicas: 3 });
    expect(
      (
        await sb.kubectl([
          'apply',
          '-f',
          manifest(sb, 'od2.yaml', statefulSetYaml('od', 'nginx:1.28', '{type: OnDelete}')),
        ])
      ).code,
    ).toBe(0);
    const next = await eventually(async () => {
      const s = await status('od');
      return s.observedGeneration === 2 ? s : undefined;
    });
    expect(next).toMatchObject({
      currentReplicas: 3,
      currentRevision: first.currentRevision,
      readyReplicas: 3,
    });
    expect(next.updatedReplicas ?? 0).toBe(0);
    expect(next.updateRevision).not.toBe(first.updateRevision);
  });

  it('the StatefulSet controller records an Event per claim it creates', async () => {
    const text = `apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db, namespace: ctl}
spec:
  replicas: 2
  serviceName: db
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec: {containers: [{name: db, image: postgres:17}]}
  volumeClaimTemplates:
  - metadata: {name: data}
    spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}
`;
    expect((await sb.kubectl(['apply', '-f', manifest(sb, 'db.yaml', text)])).code).toBe(0);
    expect((await sb.kubectl(['rollout', 'status', 'sts/db', '-n', 'ctl'])).code).toBe(0);
    const described = await sb.kubectl(['describe', 'sts', 'db', '-n', 'ctl']);
    const rows = described.stdout
      .split('\n')
      .filter((l) => l.includes('SuccessfulCreate'))
      .map((l) => l.trim().replace(/\s+\S+\s+statefulset-controller\s+/, ' statefulset-controller '));
    expect(rows).toEqual([
      'Normal  SuccessfulCreate statefulset-controller create Claim data-db-0 Pod db-0 in StatefulSet db success',
      'Normal  SuccessfulCreate statefulset-controller create Claim data-db-1 Pod db-1 in StatefulSet db success',
    ]);
  });
});
