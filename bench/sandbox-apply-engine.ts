/**
 * Throughput of the sandbox's server-side-apply engine alone (no HTTP, no storage), on one core:
 * `npx node bench/sandbox-apply-engine.ts [--iterations N] [--json]`. Each iteration is the apply
 * a reconcile does: a create by apply of a realistic Deployment (three containers, env, ports,
 * volumes, probes, resources), then a no-op re-apply of the same configuration (what the agent
 * sends when nothing changed), then an apply with a changed image. The sandbox server needs at
 * least 2,000 small applies per second overall, so the engine should manage far more.
 */
import { parseArgs } from 'node:util';
import { type KubeObject, serverSideApply } from '../src/sandbox/apply/index.ts';

function deployment(i: number, image: string): KubeObject {
  const container = (name: string, port: number) => ({
    name,
    image,
    ports: [{ containerPort: port, name: 'http' }],
    env: [
      { name: 'MOORING_COMPONENT', value: name },
      { name: 'LOG_LEVEL', value: 'info' },
      { name: 'DATABASE_URI', valueFrom: { secretKeyRef: { name: `d${i}-env`, key: 'DATABASE_URI' } } },
    ],
    resources: { requests: { cpu: '500m', memory: '512Mi' }, limits: { cpu: '1', memory: '1Gi' } },
    readinessProbe: { httpGet: { path: '/ok', port } },
    securityContext: { allowPrivilegeEscalation: false },
    volumeMounts: [{ name: 'data', mountPath: '/data' }],
  });
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: {
      name: `d${i}`,
      namespace: 'default',
      labels: { 'app.kubernetes.io/managed-by': 'mooring', 'mooring.dev/deployment-id': `id-${i}` },
      annotations: { 'mooring.dev/revision-id': `rev-${i}` },
    },
    spec: {
      replicas: 2,
      selector: { matchLabels: { app: `d${i}` } },
      template: {
        metadata: { labels: { app: `d${i}` } },
        spec: {
          securityContext: { seccompProfile: { type: 'RuntimeDefault' } },
          containers: [container('api', 8000), container('queue', 8001), container('worker', 8002)],
          volumes: [{ name: 'data', emptyDir: {} }],
        },
      },
    },
  };
}

function stored(obj: KubeObject, i: number): KubeObject {
  return {
    ...obj,
    metadata: {
      ...obj.metadata,
      uid: `uid-${i}`,
      resourceVersion: '1',
      creationTimestamp: '2026-01-01T00:00:00Z',
    },
  };
}

function main(): void {
  const { values } = parseArgs({
    options: { iterations: { type: 'string', default: '3000' }, json: { type: 'boolean', default: false } },
  });
  const iterations = Number(values.iterations);
  if (!Number.isInteger(iterations) || iterations < 1) {
    process.stderr.write('--iterations must be a positive integer\n');
    process.exitCode = 2;
    return;
  }
  const now = '2026-01-01T00:00:00Z';
  const timings = { create: 0, noop: 0, change: 0 };
  const run = (n: number, record: boolean): void => {
    for (let i = 0; i < n; i++) {
      const config = deployment(i, 'registry/app:1');
      let t = performance.now();
      const created = serverSideApply({
        live: undefined,
        applied: config,
        manager: 'mooring',
        force: false,
        now,
      });
      if (!created.ok) throw new Error('conflict on create');
      const live = stored(created.object, i);
      const t1 = performance.now();
      const again = serverSideApply({
        live,
        applied: deployment(i, 'registry/app:1'),
        manager: 'mooring',
        force: false,
        now,
      });
      if (!again.ok || again.changed) throw new Error('re-apply was not a no-op');
      const t2 = performance.now();
      const changed = serverSideApply({
        live,
        applied: deployment(i, 'registry/app:2'),
        manager: 'mooring',
        force: false,
        now,
      });
      if (!changed.ok || !changed.changed) throw new Error('changed apply did not change');
      const t3 = performance.now();
      if (record) {
        timings.create += t1 - t;
        timings.noop += t2 - t1;
        timings.change += t3 - t2;
      }
      t = t3;
    }
  };
  run(Math.min(500, iterations), false); // warm-up (JIT)
  run(iterations, true);
  const perSecond = (ms: number) => Math.round((iterations / ms) * 1000);
  const figures = {
    iterations,
    createPerSecond: perSecond(timings.create),
    noopReapplyPerSecond: perSecond(timings.noop),
    changedApplyPerSecond: perSecond(timings.change),
    overallAppliesPerSecond: Math.round(
      ((iterations * 3) / (timings.create + timings.noop + timings.change)) * 1000,
    ),
  };
  if (values.json) process.stdout.write(`${JSON.stringify(figures)}\n`);
  else {
    process.stdout.write(
      [
        `apply engine, ${iterations} iterations of a 3-container Deployment (one core):`,
        `  create by apply      ${figures.createPerSecond} /s`,
        `  no-op re-apply       ${figures.noopReapplyPerSecond} /s`,
        `  changed apply        ${figures.changedApplyPerSecond} /s`,
        `  overall              ${figures.overallAppliesPerSecond} applies/s`,
        '',
      ].join('\n'),
    );
  }
}

main();
