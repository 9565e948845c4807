import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { desiredHash, liveHash, prepareForApply } from '../../src/kube/desired-hash.ts';
import { canonicalJson, sortedKeys } from '../../src/objects/canonical-json.ts';
import { findDrift } from '../../src/kube/live-compare.ts';
import type { KubeObject } from '../../src/objects/kube-object.ts';
import { ANNOTATIONS } from '../../src/labels.ts';
import { deployment, envSecret } from './fixtures.ts';

/**
 * The first canonicalJson, kept as the reference: every hash annotation already in clusters was
 * made from its text, so a faster one must produce the same text or every object is re-applied.
 */
function referenceCanonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value))
    return `[${value.map((v) => referenceCanonicalJson(v === undefined ? null : v)).join(',')}]`;
  const keys = Object.keys(value)
    .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
    .sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${referenceCanonicalJson((value as Record<string, unknown>)[k])}`).join(',')}}`;
}

/** Keys as data may hold them, with the ones JavaScript treats specially ("0" sorts first). */
const key = fc.oneof(fc.string({ maxLength: 6 }), fc.constantFrom('0', '7', '10', '__proto__'));

/** Any JSON-like value: what canonical JSON and the desired hash must treat as the first implementation did. */
const jsonLike = fc.letrec<{ v: unknown }>((tie) => ({
  v: fc.oneof(
    { depthSize: 'small' },
    fc.constantFrom(null, true, false, undefined, 0, -1.5, '', 'ü"\\n'),
    fc.string(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.array(tie('v'), { maxLength: 4 }),
    fc.dictionary(key, tie('v'), { maxKeys: 5 }),
  ),
})).v;

describe('desired hash', () => {
  it('canonical JSON gives the same text as the first implementation, so existing annotations keep matching', () => {
    fc.assert(
      fc.property(fc.dictionary(key, jsonLike, { maxKeys: 6 }), (obj) => {
        expect(canonicalJson(obj)).toBe(referenceCanonicalJson(obj));
      }),
    );
  });

  it('sortedKeys orders keys as Array.prototype.sort does, however many there are', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string({ maxLength: 4 }), fc.constant(1), { maxKeys: 100 }), (obj) => {
        expect(sortedKeys(obj)).toEqual(Object.keys(obj).sort());
      }),
    );
  });

  it('prepareForApply sends the canonical text and hashes it, for any data (keys such as "0" or "__proto__" too)', () => {
    fc.assert(
      fc.property(jsonLike, (data) => {
        const raw: KubeObject = {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name: 'c', annotations: {} },
          data,
        };
        const text = referenceCanonicalJson(raw);
        const { object: prepared, body } = prepareForApply(raw);
        // The body is the prepared object's own serialization, made without serializing it twice.
        expect(body).toBe(JSON.stringify(prepared));
        expect(liveHash(prepared)).toBe(createHash('sha256').update(text).digest('hex'));
        const { [ANNOTATIONS.desiredHash]: _hash, ...annotations } = prepared.metadata.annotations ?? {};
        // What is sent is what was hashed (key order aside where JavaScript imposes its own).
        expect({ ...prepared, metadata: { ...prepared.metadata, annotations } }).toStrictEqual(
          JSON.parse(text),
        );
      }),
    );
  });

  it('is independent of key order and of its own annotation', () => {
    expect(canonicalJson({ b: 1, a: [{ d: 2, c: 3 }] })).toBe('{"a":[{"c":3,"d":2}],"b":1}');
    const d = deployment('ns');
    const shuffled = JSON.parse(
      JSON.stringify({ spec: d.spec, metadata: d.metadata, kind: d.kind, apiVersion: d.apiVersion }),
    );
    expect(desiredHash(shuffled)).toBe(desiredHash(d));
    expect(desiredHash(prepareForApply(d).object)).toBe(desiredHash(d));
  });

  it('prepareForApply annotates the hash the first implementation made, and leaves its input alone', () => {
    const reference = (o: KubeObject) => {
      const copy = JSON.parse(JSON.stringify(o)) as KubeObject;
      copy.metadata.annotations = { ...(copy.metadata.annotations ?? {}) };
      delete copy.metadata.annotations[ANNOTATIONS.desiredHash];
      return createHash('sha256').update(referenceCanonicalJson(copy)).digest('hex');
    };
    for (const raw of [deployment('ns'), envSecret('ns', 'env', { TOKEN: 'abc', B: 'ü' })]) {
      const before = JSON.stringify(raw);
      const { object: prepared, body } = prepareForApply(raw);
      expect(body).toBe(JSON.stringify(prepared));
      expect(JSON.stringify(raw)).toBe(before);
      expect(liveHash(prepared)).toBe(reference(prepared));
      // Preparing what was prepared changes nothing: the hash ignores its own annotation.
      expect(prepareForApply(prepared).object).toEqual(prepared);
    }
  });

  it('changes when a desired field changes or goes away', () => {
    const base = desiredHash(deployment('ns'));
    expect(desiredHash(deployment('ns', 'app', { image: 'example.com/app:2.0' }))).not.toBe(base);
    expect(desiredHash(deployment('ns', 'app', { replicas: null }))).not.toBe(base);
  });

  it('folds Secret stringData into base64 data (the API never returns stringData)', () => {
    const prepared = prepareForApply(envSecret('ns', 'env', { TOKEN: 'abc' })).object;
    expect(prepared.stringData).toBeUndefined();
    expect(prepared.data).toEqual({ TOKEN: Buffer.from('abc').toString('base64') });
    expect(liveHash(prepared)).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe('live subset comparison', () => {
  const desired = prepareForApply(deployment('ns')).object;
  const live = JSON.parse(JSON.stringify(desired));
  // What an API server adds: defaults, status, metadata, fields of other managers.
  live.metadata.uid = 'u1';
  live.metadata.annotations['kubectl.kubernetes.io/last-applied'] = 'x';
  live.spec.strategy = { type: 'RollingUpdate' };
  live.spec.template.spec.containers[0].terminationMessagePath = '/dev/termination-log';
  live.spec.template.spec.containers[0].ports[0].protocol = 'TCP';
  live.spec.template.spec.containers[0].env.unshift({ name: 'INJECTED', value: 'by-webhook' });
  live.spec.template.spec.containers[0].resources.requests.cpu = '500m';
  live.spec.template.spec.containers[0].resources.limits.memory = '1024Mi';
  live.status = { replicas: 1 };

  it('ignores defaults, extra keyed-list members and quantity spelling', () => {
    expect(findDrift(desired, live)).toBeUndefined();
  });

  it('finds a field we own edited by hand, with its path', () => {
    const edited = structuredClone(live);
    edited.spec.template.spec.containers[0].image = 'evil:latest';
    expect(findDrift(desired, edited)).toBe('.spec.template.spec.containers[name=api].image');
  });

  it('finds a removed label and a missing keyed member', () => {
    const a = structuredClone(live);
    delete a.metadata.labels['mooring.dev/deployment-id'];
    expect(findDrift(desired, a)).toBe('.metadata.labels.mooring.dev/deployment-id');
    const b = structuredClone(live);
    b.spec.template.spec.containers[0].env = [];
    expect(findDrift(desired, b)).toBe(
      '.spec.template.spec.containers[name=api].env[name=MOORING_COMPONENT]',
    );
  });

  it('treats zero values the server omits as equal to absent', () => {
    expect(findDrift({ a: false, b: 0, c: '', d: {}, e: [], f: null }, {})).toBeUndefined();
    expect(findDrift({ a: true }, {})).toBe('.a');
    expect(findDrift({ d: { x: 1 } }, {})).toBe('.d');
  });

  it('compares atomic lists whole', () => {
    expect(findDrift({ args: ['a', 'b'] }, { args: ['a', 'b', 'c'] })).toBe('.args');
    expect(findDrift({ args: ['a', 'b'] }, { args: ['a', 'b'] })).toBeUndefined();
  });

  it('compares quantities by value only in quantity fields', () => {
    const pod = (cpu: unknown, storage: unknown, limit: unknown) => ({
      containers: [{ name: 'api', resources: { requests: { cpu }, limits: { memory: cpu } } }],
      volumes: [{ name: 'v', emptyDir: { sizeLimit: limit } }],
      volumeClaimTemplates: [{ spec: { resources: { requests: { storage } } } }],
    });
    expect(findDrift(pod('0.5', '1024Mi', '1.5Gi'), pod('500m', '1Gi', '1536Mi'))).toBeUndefined();
    expect(findDrift(pod(1, '10Gi', '1Gi'), pod('1', '10Gi', '1Gi'))).toBeUndefined();
    expect(findDrift(pod('0.5', '1Gi', '1Gi'), pod('501m', '1Gi', '1Gi'))).toBe(
      '.containers[name=api].resources.requests.cpu',
    );
    const hpa = (averageValue: string) => ({ metrics: [{ resource: { target: { averageValue } } }] });
    expect(findDrift(hpa('0.5'), hpa('500m'))).toBeUndefined();
  });

  it('sees an edit of a number-like env value, label or image as drift', () => {
    const env = (value: string) => ({ env: [{ name: 'VERSION', value }] });
    expect(findDrift(env('1.10'), env('1.1'))).toBe('.env[name=VERSION].value');
    expect(findDrift(env('0.5'), env('500m'))).toBe('.env[name=VERSION].value');
    const labels = (v: string) => ({ metadata: { labels: { 'x.resources.limits': v } } });
    expect(findDrift(labels('1Gi'), labels('1024Mi'))).toBe('.metadata.labels.x.resources.limits');
    expect(findDrift({ image: 'app:1' }, { image: 'app:1.0' })).toBe('.image');
    expect(findDrift({ replicas: 2 }, { replicas: '2' })).toBe('.replicas');
  });
});
