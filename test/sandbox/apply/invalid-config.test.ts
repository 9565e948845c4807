/**
 * Applied configurations the schema refuses: the apiserver answers with an error naming the field
 * (structured-merge-diff validation: "expected map, got list", "field not declared in schema",
 * "duplicate entries for key", keyed items without their key), never with a crash.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ApplyError, type KubeObject, serverSideApply } from '../../../src/sandbox/apply/index.ts';
import { deployment, stored, T0 } from './fixtures.ts';

function tryApply(applied: unknown, live?: KubeObject): unknown {
  try {
    return serverSideApply({
      live,
      applied: applied as KubeObject,
      manager: 'mooring',
      force: false,
      now: T0,
    });
  } catch (err) {
    return err;
  }
}

function withSpec(spec: unknown): unknown {
  return { ...deployment(), spec };
}

describe('invalid applied configurations', () => {
  it.each([
    ['a list where a map is expected', withSpec([1, 2]), '.spec: expected map, got list'],
    [
      'a map where a list is expected',
      withSpec({ template: { spec: { containers: { name: 'x' } } } }),
      'containers: expected list, got map',
    ],
    [
      'a string where a number is expected',
      withSpec({ replicas: 'three' }),
      '.spec.replicas: expected numeric, got string',
    ],
    ['an unknown field', withSpec({ replicaz: 1 }), '.spec.replicaz: field not declared in schema'],
    [
      'a keyed item without its key (and no schema default for it)',
      { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'sa' }, secrets: [{ namespace: 'x' }] },
      '.secrets[0]: associative list with keys has an element that omits all key fields ["name"]',
    ],
    [
      'a duplicated key',
      withSpec({ template: { spec: { containers: [{ name: 'a' }, { name: 'a' }] } } }),
      'duplicate entries for key',
    ],
    [
      'a scalar list item in a keyed list',
      withSpec({ template: { spec: { containers: ['a'] } } }),
      'non-map elements',
    ],
  ])('%s is an ApplyError (422) naming the field', (_what, applied, message) => {
    const err = tryApply(applied);
    expect(err).toBeInstanceOf(ApplyError);
    expect((err as ApplyError).status).toBe(422);
    expect((err as ApplyError).message).toContain(message);
  });

  it('a container without a name takes the schema default key (name "") like the apiserver; validation rejects it later', () => {
    const r = tryApply(withSpec({ template: { spec: { containers: [{ image: 'x' }] } } })) as {
      ok: boolean;
      object: KubeObject;
    };
    expect(r.ok).toBe(true);
    expect(JSON.stringify(r.object.metadata.managedFields)).toContain('k:{\\"name\\":\\"\\"}');
  });

  it('a configuration of another kind than the live object is a 400', () => {
    const live = stored({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'web', namespace: 'default' },
    });
    const err = tryApply(deployment(), live);
    expect(err).toBeInstanceOf(ApplyError);
    expect((err as ApplyError).status).toBe(400);
  });

  it('errors carry field names, never values (a secret value stays out of the message)', () => {
    const err = tryApply({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 's', namespace: 'default' },
      stringData: { password: ['hunter2-canary'] },
    });
    expect(err).toBeInstanceOf(ApplyError);
    expect((err as ApplyError).message).toBe('.stringData.password: expected string, got list');
  });

  it('arbitrary JSON under spec never crashes the engine: it applies or throws ApplyError', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 4 }), fc.jsonValue({ maxDepth: 3 }), (spec, template) => {
        const applied = { ...deployment(), spec: { replicas: 1, template: { spec: template }, extra: spec } };
        for (const candidate of [withSpec(spec), applied]) {
          const r = tryApply(candidate);
          if (r instanceof Error && !(r instanceof ApplyError)) throw r;
        }
      }),
      { numRuns: 300 },
    );
  });
});
