import { describe, expect, it } from 'vitest';
import { isSketch, RecordSketches, sketch } from '../../src/agent/record-sketch.ts';
import type { DeploymentRecord } from '../../src/contract/index.ts';

const ID = 'aaaaaaaa-0000-4000-8000-000000000001';
const record = {
  id: ID,
  name: 'shop',
  source: 'external_docker',
  status: 'READY',
  latest_revision_id: 'eeeeeeee-0000-4000-8000-000000000001',
  tenant_id: 'cccccccc-0000-4000-8000-000000000001',
  created_at: '2026-01-01T00:00:00Z',
  updated_at: '2026-01-02T00:00:00Z',
  source_config: {
    listener_id: 'dddddddd-0000-4000-8000-000000000001',
    custom_url: 'https://shop.example.com/',
    listener_config: { k8s_namespace: 'apps' },
    resource_spec: { min_scale: 1 },
  },
  source_revision_config: { image_uri: 'img:1' },
  secrets: [{ name: 'TOKEN', value: 'hunter2' }],
} as unknown as DeploymentRecord;

describe('RecordSketches', () => {
  it('keeps the members collisions read and none other (no secret, no spec)', () => {
    const others = new RecordSketches();
    others.keep([record]);
    const sketch = others.known(ID, structuredClone(record))!;
    expect(sketch).toEqual({
      id: ID,
      name: 'shop',
      source: 'external_docker',
      status: 'READY',
      latest_revision_id: record.latest_revision_id,
      tenant_id: record.tenant_id,
      created_at: record.created_at,
      updated_at: record.updated_at,
      source_config: {
        listener_id: record.source_config.listener_id,
        custom_url: 'https://shop.example.com/',
        listener_config: { k8s_namespace: 'apps' },
      },
    });
    expect(JSON.stringify(sketch)).not.toContain('hunter2');
  });

  it('gives no sketch when a sketched member changed, or was listed in another type', () => {
    const others = new RecordSketches();
    others.keep([record]);
    const changed = (patch: object) => ({ ...structuredClone(record), ...patch });
    expect(others.known(ID, changed({ name: 'cafe' }))).toBeUndefined();
    expect(others.known(ID, changed({ updated_at: '2026-03-01T00:00:00Z' }))).toBeUndefined();
    expect(others.known(ID, changed({ source_config: 'apps' }))).toBeUndefined();
    expect(
      others.known(ID, changed({ source_config: { ...record.source_config, listener_config: null } })),
    ).toBeUndefined();
    expect(others.known(ID, null)).toBeUndefined();
    // A member not sketched may change: the sketch still stands for the record.
    expect(others.known(ID, changed({ secrets: [] }))).toBeDefined();
  });

  it('forgets the records not kept at the last listing', () => {
    const others = new RecordSketches();
    others.keep([record]);
    others.keep([]);
    expect(others.known(ID, structuredClone(record))).toBeUndefined();
  });

  it('marks a sketch as one, and sketches a record once', () => {
    const made = sketch(record);
    expect(isSketch(made)).toBe(true);
    expect(isSketch(record)).toBe(false);
    expect(sketch(made)).toBe(made);
    const kept = new RecordSketches();
    kept.keep([made]);
    expect(kept.known(ID, structuredClone(record))).toBe(made);
    expect(kept.size).toBe(1);
  });
});
