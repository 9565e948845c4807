/**
 * Quantities are stored in resource.Quantity's canonical form, in every quantity field, whichever
 * way they are written (client-side and server-side apply, create, a number or a string). The
 * expected strings are what kube-apiserver 1.34 answers (its CanonicalizeBytes): decimal values
 * take the largest SI suffix with an integer mantissa, binary ones the largest power of 1024, and
 * exponent notation stays exponent notation.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compareQuantities, parseQuantity } from '../../src/quantity.ts';
import { type Sandbox, startSandbox } from './helpers.ts';

// biome-ignore lint/suspicious/noExplicitAny: objects read back from kubectl, checked by the assertions
type Json = Record<string, any>;

/** Written value -> what a real API server stores and returns. */
const SERVER_ANSWERS: [written: string | number, stored: string][] = [
  ['0.5', '500m'],
  [0.5, '500m'],
  [1, '1'],
  ['1000m', '1'],
  ['1.5', '1500m'],
  ['0.1', '100m'],
  ['100m', '100m'],
  ['0.0001', '100u'],
  ['0.1m', '100u'],
  ['1.0000000001', '1000000001n'],
  ['1000', '1k'],
  ['1500000', '1500k'],
  ['129e6', '129e6'],
  ['1e3', '1e3'],
  ['12e-1', '1200e-3'],
  ['128974848', '128974848'],
  ['1024Mi', '1Gi'],
  ['1.5Gi', '1536Mi'],
  ['0.5Gi', '512Mi'],
  ['1000Mi', '1000Mi'],
  ['1024Ki', '1Mi'],
  ['0.5Ki', '512'],
  ['1.5Ki', '1536'],
  ['976.5625Ki', '1000000'],
  ['0.1Ki', '102400m'],
  ['0', '0'],
  ['0Gi', '0'],
];

describe('canonical quantities (src/quantity.ts)', () => {
  it.each(SERVER_ANSWERS)('%j is stored as %s', (written, stored) => {
    expect(parseQuantity(written)?.server).toBe(stored);
  });

  const quantity = fc
    .tuple(
      fc.bigInt({ min: 0n, max: 10n ** 12n }),
      fc.integer({ min: 0, max: 4 }),
      fc.constantFrom('', 'n', 'u', 'm', 'k', 'M', 'G', 'T', 'Ki', 'Mi', 'Gi', 'Ti', 'e3', 'e-2'),
    )
    .map(([digits, point, suffix]) => {
      const text = digits.toString().padStart(point + 1, '0');
      return point === 0 ? `${text}${suffix}` : `${text.slice(0, -point)}.${text.slice(-point)}${suffix}`;
    });

  it('canonicalization is idempotent and keeps the value (both forms keep it)', () => {
    fc.assert(
      fc.property(quantity, (text) => {
        const parsed = parseQuantity(text);
        if (!parsed) return false;
        const again = parseQuantity(parsed.canonical);
        const stored = parseQuantity(parsed.server);
        return (
          again !== undefined &&
          again.canonical === parsed.canonical &&
          compareQuantities(again.value, parsed.value) === 0 &&
          stored !== undefined &&
          compareQuantities(stored.value, parsed.value) === 0
        );
      }),
      { numRuns: 2000 },
    );
  });

  it('a stored (server) form, read again, is stored unchanged unless it is a bare integer', () => {
    fc.assert(
      fc.property(quantity, (text) => {
        const stored = parseQuantity(text)?.server ?? '';
        return /^\d+$/.test(stored) || parseQuantity(stored)?.server === stored;
      }),
    );
  });
});

describe('quantities canonicalized on write, in every quantity field', () => {
  let sb: Sandbox;
  beforeAll(async () => {
    sb = await startSandbox({ namespaces: ['q'] });
  });
  afterAll(async () => {
    await sb.close();
  });

  async function getJson(kind: string, name: string): Promise<Json> {
    const got = await sb.kubectl(['get', kind, name, '-n', 'q', '-o', 'json']);
    expect(got.stderr).toBe('');
    return JSON.parse(got.stdout) as Json;
  }

  const podSpec = (cpu: unknown, memory: unknown) => ({
    overhead: { cpu: '0.25' },
    initContainers: [{ name: 'init', image: 'busybox', resources: { requests: { cpu, memory } } }],
    containers: [
      {
        name: 'app',
        image: 'nginx',
        resources: {
          requests: { cpu, memory },
          limits: { cpu: 1, memory: '1.5Gi', 'ephemeral-storage': '2048Mi' },
        },
      },
    ],
    volumes: [{ name: 'scratch', emptyDir: { sizeLimit: '1024Mi' } }],
  });

  it('the table: each written value of a Deployment container comes back as the server stores it', async () => {
    const containers = SERVER_ANSWERS.map(([written], i) => ({
      name: `c${i}`,
      image: 'nginx',
      resources: { requests: { cpu: written } },
    }));
    const deployment = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'table', namespace: 'q' },
      spec: {
        selector: { matchLabels: { app: 'table' } },
        template: { metadata: { labels: { app: 'table' } }, spec: { containers } },
      },
    };
    expect((await sb.kubectl(['apply', '-f', '-'], JSON.stringify(deployment))).stderr).toBe('');
    const live = await getJson('deployment', 'table');
    const stored = live.spec.template.spec.containers.map((c: Json) => c.resources.requests.cpu);
    expect(stored).toEqual(SERVER_ANSWERS.map(([, s]) => s));
  });

  it('Deployment: containers, init containers, overhead, emptyDir sizeLimit', async () => {
    const deployment = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', namespace: 'q' },
      spec: {
        selector: { matchLabels: { app: 'web' } },
        template: { metadata: { labels: { app: 'web' } }, spec: podSpec('0.5', '1024Mi') },
      },
    };
    expect((await sb.kubectl(['create', '-f', '-'], JSON.stringify(deployment))).stderr).toBe('');
    const spec = (await getJson('deployment', 'web')).spec.template.spec;
    expect(spec.containers[0].resources).toEqual({
      requests: { cpu: '500m', memory: '1Gi' },
      limits: { cpu: '1', memory: '1536Mi', 'ephemeral-storage': '2Gi' },
    });
    expect(spec.initContainers[0].resources).toEqual({ requests: { cpu: '500m', memory: '1Gi' } });
    expect(spec.overhead).toEqual({ cpu: '250m' });
    expect(spec.volumes[0].emptyDir).toEqual({ sizeLimit: '1Gi' });
  });

  it('StatefulSet volumeClaimTemplates and PVC spec.resources', async () => {
    const sts = {
      apiVersion: 'apps/v1',
      kind: 'StatefulSet',
      metadata: { name: 'db', namespace: 'q' },
      spec: {
        serviceName: 'db',
        selector: { matchLabels: { app: 'db' } },
        template: { metadata: { labels: { app: 'db' } }, spec: podSpec(0.5, '0.5Gi') },
        volumeClaimTemplates: [
          {
            metadata: { name: 'data' },
            spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '10240Mi' } } },
          },
        ],
      },
    };
    const pvc = {
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: { name: 'claim', namespace: 'q' },
      spec: {
        accessModes: ['ReadWriteOnce'],
        resources: { requests: { storage: '1.5Gi' }, limits: { storage: 2 } },
      },
    };
    const applied = await sb.kubectl(
      ['apply', '--server-side', '-f', '-'],
      `${JSON.stringify(sts)}\n${JSON.stringify(pvc)}`,
    );
    expect(applied.stderr).toBe('');
    const live = await getJson('statefulset', 'db');
    expect(live.spec.volumeClaimTemplates[0].spec.resources).toEqual({ requests: { storage: '10Gi' } });
    expect(live.spec.template.spec.containers[0].resources.requests).toEqual({
      cpu: '500m',
      memory: '512Mi',
    });
    const claim = await getJson('pvc', 'claim');
    expect(claim.spec.resources).toEqual({ requests: { storage: '1536Mi' }, limits: { storage: '2' } });
  });

  it('HPA metric targets: averageValue and value', async () => {
    const hpa = {
      apiVersion: 'autoscaling/v2',
      kind: 'HorizontalPodAutoscaler',
      metadata: { name: 'web', namespace: 'q' },
      spec: {
        scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' },
        maxReplicas: 3,
        metrics: [
          {
            type: 'Resource',
            resource: { name: 'memory', target: { type: 'AverageValue', averageValue: '1024Mi' } },
          },
          {
            type: 'Pods',
            pods: { metric: { name: 'rps' }, target: { type: 'AverageValue', averageValue: '0.5' } },
          },
          {
            type: 'External',
            external: { metric: { name: 'queue' }, target: { type: 'Value', value: 1000 } },
          },
        ],
      },
    };
    expect((await sb.kubectl(['apply', '-f', '-'], JSON.stringify(hpa))).stderr).toBe('');
    const metrics = (await getJson('hpa', 'web')).spec.metrics;
    expect(metrics.map((m: Json) => (m.resource ?? m.pods ?? m.external).target)).toEqual([
      { type: 'AverageValue', averageValue: '1Gi' },
      { type: 'AverageValue', averageValue: '500m' },
      { type: 'Value', value: '1k' },
    ]);
  });

  it('a value that is not a quantity is 400, worded as the server decoder words it', async () => {
    const res = await sb.call('POST', '/api/v1/namespaces/q/persistentvolumeclaims', {
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: { name: 'bad' },
      spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: 'ten gigs' } } },
    });
    expect(res.status).toBe(400);
    expect(res.body.message).toBe(
      `PersistentVolumeClaim in version "v1" cannot be handled as a PersistentVolumeClaim: quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'`,
    );
  });
});
