/**
 * Throughput of the sandbox's server-side-apply engine alone (no HTTP, no storage), on one core:
 * `npx node bench/sandbox-apply-engine.ts [--iterations N] [--json]`. Each iteration is the apply
 * a reconcile does: a create by apply of a realistic Deployment (three containers, env, ports,
 * volumes, probes, resources), then a no-op re-apply of the same configuration (what the agent
 * sends when nothing changed), then an apply with a changed image; and a no-op re-apply of a
 * small ConfigMap. The sandbox server needs at least 2,000 small applies per second overall, so
 * the engine should manage far more.
 */
import { parseArgs } from 'node:util';
import { LABELS, MANAGED_BY } from '../src/labels.ts';
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
      labels: { [LABELS.managedBy]: MANAGED_BY, [LABELS.deploymentId]: `id-${i}` },
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
  /** One apply by `mooring`, not forced, at the fixed time. */
  const applyAs = (live: KubeObject | undefined, applied: KubeObject) =>
    serverSideApply({ live, applied, manager: 'mooring', force: false, now });
  // A ring of distinct objects, small enough that the benchmark measures the engine rather than
  // the old-generation garbage collection of thousands of retained objects.
  const RING = 200;
  const configs = Array.from({ length: RING }, (_, i) => deployment(i, 'registry/app:1'));
  const repeats = Array.from({ length: RING }, (_, i) => deployment(i, 'registry/app:1'));
  const changes = Array.from({ length: RING }, (_, i) => deployment(i, 'registry/app:2'));
  // Each phase is timed in CPU time of this process (user + system), so the figure is per core
  // and does not depend on what else the machine runs; wall time is printed alongside.
  const phase = (name: string, fn: (i: number) => void) => {
    for (let i = 0; i < Math.min(300, iterations); i++) fn(i); // warm-up (JIT)
    const c0 = process.cpuUsage();
    const w0 = performance.now();
    for (let i = 0; i < iterations; i++) fn(i);
    const wallMs = performance.now() - w0;
    const c = process.cpuUsage(c0);
    const cpuMs = (c.user + c.system) / 1000;
    return {
      name,
      perCpuSecond: Math.round((iterations / cpuMs) * 1000),
      perWallSecond: Math.round((iterations / wallMs) * 1000),
      cpuMs,
    };
  };
  const lives: KubeObject[] = new Array(RING);
  const create = phase('create by apply', (i) => {
    const r = applyAs(undefined, configs[i % RING] as KubeObject);
    if (!r.ok) throw new Error('conflict on create');
    lives[i % RING] = stored(r.object, i);
  });
  const noop = phase('no-op re-apply', (i) => {
    const live = lives[i % RING];
    const r = applyAs(live, repeats[i % RING] as KubeObject);
    if (!r.ok || r.changed) throw new Error('re-apply was not a no-op');
  });
  const change = phase('changed apply', (i) => {
    const live = lives[i % RING];
    const r = applyAs(live, changes[i % RING] as KubeObject);
    if (!r.ok || !r.changed) throw new Error('changed apply did not change');
  });
  const configMap = (i: number): KubeObject => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: `c${i}`, namespace: 'default', labels: { [LABELS.managedBy]: MANAGED_BY } },
    data: { MODE: 'api', LOG_LEVEL: 'info' },
  });
  const smallConfigs = Array.from({ length: RING }, (_, i) => configMap(i));
  const smallLives = smallConfigs.map((c, i) => {
    const r = applyAs(undefined, c);
    if (!r.ok) throw new Error('conflict on create');
    return stored(r.object, i);
  });
  const small = phase('small no-op (CM)', (i) => {
    const applied = configMap(i % RING);
    const r = applyAs(smallLives[i % RING], applied);
    if (!r.ok || r.changed) throw new Error('re-apply was not a no-op');
  });
  const phases = [create, noop, change, small];
  const deploymentPhases = [create, noop, change];
  const overall = Math.round(((iterations * 3) / deploymentPhases.reduce((a, p) => a + p.cpuMs, 0)) * 1000);
  if (values.json)
    process.stdout.write(`${JSON.stringify({ iterations, phases, overallPerCpuSecond: overall })}\n`);
  else {
    process.stdout.write(
      [
        `apply engine, ${iterations} applies per phase (per CPU second of one core; wall time in brackets):`,
        ...phases.map(
          (p) =>
            `  ${p.name.padEnd(18)} ${String(p.perCpuSecond).padStart(7)} /s   (${p.perWallSecond} /s wall)`,
        ),
        `  overall (Deployment phases) ${overall} applies/s`,
        '',
      ].join('\n'),
    );
  }
}

main();
