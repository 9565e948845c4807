import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type DeploymentRecord,
  deploymentUnsupported,
  listenerUnsupported,
  MalformedPageError,
  parsePage,
  revisionUnsupported,
  tolerant,
} from '../../src/contract/index.ts';

const deployment = {
  name: 'app',
  source: 'external_docker',
  source_config: { listener_id: 'l-1', resource_spec: { cpu: 0.5 } },
  source_revision_config: { image_uri: 'repo/app:1' },
  secrets: [{ name: 'A', value: 'v' }],
  id: 'd-1',
  tenant_id: 't-1',
  created_at: '2026-01-01T00:00:00Z',
  updated_at: '2026-01-01T00:00:00Z',
  status: 'READY',
  latest_revision_id: 'r-1',
  active_revision_id: null,
};

/** Replaces the value at a random path of a JSON value (or adds a member), to make near-valid records. */
function mutate(value: unknown, path: readonly string[], replacement: unknown): unknown {
  if (path.length === 0) return replacement;
  if (value === null || typeof value !== 'object') return value;
  const [head, ...rest] = path;
  const copy: Record<string, unknown> = Array.isArray(value) ? ([...value] as never) : { ...value };
  copy[head!] = mutate(copy[head!], rest, replacement);
  return copy;
}

const paths = fc.constantFrom(
  ['name'],
  ['source'],
  ['status'],
  ['id'],
  ['secrets'],
  ['secrets', '0', 'value'],
  ['source_config'],
  ['source_config', 'resource_spec', 'cpu'],
  ['source_config', 'deployment_type'],
  ['source_revision_config'],
  ['latest_revision_id'],
  ['new_field'],
);

describe('tolerant page parsing', () => {
  it('never throws on arbitrary JSON records, and accounts for each one', () => {
    fc.assert(
      fc.property(
        fc.array(fc.jsonValue({ maxDepth: 4 }), { maxLength: 12 }),
        fc.nat(),
        (resources, offset) => {
          for (const [item, flag] of [
            [tolerant.Deployment, deploymentUnsupported],
            [tolerant.Revision, revisionUnsupported],
            [tolerant.Listener, listenerUnsupported],
          ] as const) {
            const page = parsePage({ resources, offset }, item, flag as never);
            expect(page.items.length + page.rejected.length).toBe(resources.length);
            expect(page.offset).toBe(offset);
            for (const r of page.rejected) {
              expect(r.code).toBe('MOORING_E_RECORD_INVALID');
              expect(r.reason.length).toBeGreaterThan(0);
              expect(r.index).toBeGreaterThanOrEqual(0);
              expect(r.index).toBeLessThan(resources.length);
            }
            expect(new Set(page.rejected.map((r) => r.index)).size).toBe(page.rejected.length);
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('never throws on arbitrary JSON as a whole body: it parses or throws MalformedPageError', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 4 }), (body) => {
        try {
          parsePage(body, tolerant.Deployment, deploymentUnsupported);
        } catch (err) {
          expect(err).toBeInstanceOf(MalformedPageError);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('refuses a broken record alone, with a reason naming the field, and keeps its neighbours', () => {
    fc.assert(
      fc.property(paths, fc.jsonValue({ maxDepth: 2 }), (path, replacement) => {
        const broken = mutate(deployment, path, replacement);
        const page = parsePage(
          { resources: [deployment, broken, { ...deployment, id: 'd-3' }], offset: 3 },
          tolerant.Deployment,
          deploymentUnsupported,
        );
        expect(page.items.map((d) => d.id)).toEqual(expect.arrayContaining(['d-1', 'd-3']));
        if (page.rejected.length > 0) {
          expect(page.rejected).toHaveLength(1);
          expect(page.rejected[0]!.index).toBe(1);
          expect(page.rejected[0]!.reason).toContain(path[0]!);
        } else {
          expect(page.items).toHaveLength(3);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('parses a page holding records nested 100,000 levels deep without recursing into them', () => {
    // Free-form members (valueFrom, securityContext) and unknown ones are not walked by the parse:
    // the page is read whole, and the poller refuses such a record alone (MAX_RECORD_DEPTH, see
    // test/control-plane/hostile-records.test.ts), before anything recursive walks it.
    const text = `${'{"a":'.repeat(100_000)}1${'}'.repeat(100_000)}`;
    const container = (securityContext: string, valueFrom: string) =>
      `{"name":"side","securityContext":${securityContext},"env":[{"name":"A","valueFrom":${valueFrom}}]}`;
    const spec = (c: string) => `{"cpu":0.5,"sidecars":[${c}]}`;
    const base = JSON.stringify({
      ...deployment,
      source_config: { listener_id: 'l-1', resource_spec: 'SPEC' },
    });
    const deep = [
      base.replace('"SPEC"', spec(container(text, '{}'))).replace('"d-1"', '"d-2"'),
      base.replace('"SPEC"', spec(container('{}', text))).replace('"d-1"', '"d-3"'),
      `${JSON.stringify({ ...deployment, id: 'd-4' }).slice(0, -1)},"x_future":${text}}`,
    ];
    const body = JSON.parse(`{"resources":[${JSON.stringify(deployment)},${deep.join(',')}],"offset":4}`);
    const page = parsePage(body, tolerant.Deployment, deploymentUnsupported);
    expect(page.items.map((d) => d.id)).toEqual(['d-1', 'd-2', 'd-3', 'd-4']);
    expect(page.rejected).toEqual([]);
  });

  it('keeps what `keep` says of each record it parsed, flagged from the whole record; a known one as it is', () => {
    const held = { ...deployment, id: 'd-held' } as DeploymentRecord;
    const seen: string[] = [];
    const page = parsePage(
      {
        resources: [
          { ...deployment, source: 'github' },
          { ...deployment, id: 'd-held' },
        ],
        offset: 2,
      },
      tolerant.Deployment,
      deploymentUnsupported,
      (raw) => ((raw as { id?: string }).id === 'd-held' ? held : undefined),
      (record) => {
        seen.push(record.id);
        return { id: record.id, source: record.source } as DeploymentRecord;
      },
    );
    expect(seen).toEqual(['d-1']);
    expect(page.items[0]).toEqual({ id: 'd-1', source: 'github' });
    expect(page.items[1]).toBe(held);
    expect(page.unsupported.map((u) => u.id)).toEqual(['d-1']);
  });

  it('keeps records with unknown enum values and extra fields, and flags them', () => {
    const page = parsePage(
      {
        resources: [
          { ...deployment, source: 'github', status: 'PAUSED', future: { x: 1 } },
          { ...deployment, id: 'd-2', source_config: { deployment_type: 'enterprise' } },
        ],
        offset: 2,
      },
      tolerant.Deployment,
      deploymentUnsupported,
    );
    expect(page.rejected).toEqual([]);
    expect(page.items).toHaveLength(2);
    expect((page.items[0] as Record<string, unknown>).future).toEqual({ x: 1 });
    expect(page.unsupported).toEqual([
      {
        index: 0,
        id: 'd-1',
        code: 'MOORING_E_RECORD_UNSUPPORTED',
        reason: 'source "github" is not supported; status "PAUSED" is not supported',
      },
      {
        index: 1,
        id: 'd-2',
        code: 'MOORING_E_RECORD_UNSUPPORTED',
        reason: 'source_config.deployment_type "enterprise" is not supported',
      },
    ]);
  });

  it('refuses an unsupported record without a readable id instead of keeping it unflagged', () => {
    const page = parsePage(
      {
        resources: [
          { ...deployment, id: '', source: 'github' },
          { ...deployment, id: '' },
        ],
        offset: 2,
      },
      tolerant.Deployment,
      deploymentUnsupported,
    );
    expect(page.items).toHaveLength(1);
    expect(page.unsupported).toEqual([]);
    expect(page.rejected).toEqual([
      {
        index: 0,
        code: 'MOORING_E_RECORD_INVALID',
        reason: 'no readable id, and source "github" is not supported',
      },
    ]);
  });

  it('never puts a field value in a rejection reason (values may be secrets)', () => {
    const secret = 'very-secret-value-123';
    const page = parsePage(
      {
        resources: [
          { ...deployment, secrets: [{ name: 'A', value: { nested: secret } }], name: secret.length },
        ],
        offset: 1,
      },
      tolerant.Deployment,
    );
    expect(page.rejected).toHaveLength(1);
    expect(page.rejected[0]!.reason).not.toContain(secret);
  });

  it('takes a record the caller answers for as it is, unparsed, and still flags it', () => {
    const held = { ...deployment, id: 'd-held', status: 'SOMETHING_NEW' };
    const body = {
      resources: [
        { ...deployment, id: 'd-held', status: 'SOMETHING_NEW' },
        { ...deployment, id: 'd-new' },
        { ...deployment, id: 'd-broken', name: 42 },
      ],
      offset: 3,
    };
    const asked: unknown[] = [];
    const page = parsePage(body, tolerant.Deployment, deploymentUnsupported, (raw) => {
      asked.push((raw as { id: string }).id);
      return (raw as { id: string }).id === 'd-held' ? (held as never) : undefined;
    });
    expect(asked).toEqual(['d-held', 'd-new', 'd-broken']);
    expect(page.items[0]).toBe(held);
    expect(page.items[1]).toEqual({ ...deployment, id: 'd-new' });
    expect(page.unsupported.map((u) => u.id)).toEqual(['d-held']);
    expect(page.rejected.map((r) => r.id)).toEqual(['d-broken']);
  });

  it('gives back what it was given for every record it keeps (what lets a caller skip parsing)', () => {
    fc.assert(
      fc.property(paths, fc.jsonValue({ maxDepth: 3 }), (path, value) => {
        const raw = mutate(deployment, path, value);
        const parsed = tolerant.Deployment.safeParse(structuredClone(raw));
        if (parsed.success) expect(parsed.data).toStrictEqual(raw);
      }),
    );
  });
});
