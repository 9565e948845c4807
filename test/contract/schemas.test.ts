import { describe, expect, it } from 'vitest';
import {
  DeploymentListQuery,
  PageQuery,
  RevisionListQuery,
  strict,
  TokenListQuery,
  tolerant,
} from '../../src/contract/index.ts';

const listener = {
  id: '11111111-1111-4111-8111-111111111111',
  compute_type: 'k8s',
  compute_id: 'c',
  compute_config: { k8s_namespaces: ['default'] },
  created_at: '2026-01-01T00:00:00.000Z',
  updated_at: '2026-01-01T00:00:00Z',
  version: null,
};

describe('strict and tolerant forms of one schema', () => {
  it('strict refuses extra members and unknown enum values; tolerant keeps both', () => {
    const odd = { ...listener, compute_type: 'vm', extra: 1 };
    expect(strict.Listener.safeParse(listener).success).toBe(true);
    expect(strict.Listener.safeParse(odd).success).toBe(false);
    const kept = tolerant.Listener.parse(odd);
    expect(kept).toMatchObject({ compute_type: 'vm', extra: 1 });
  });

  it('strict checks UUIDs and date-times; tolerant takes any string', () => {
    const loose = { ...listener, id: 'not-a-uuid', created_at: 'yesterday' };
    expect(strict.Listener.safeParse(loose).success).toBe(false);
    expect(tolerant.Listener.safeParse(loose).success).toBe(true);
  });

  it('keeps hostPath and other volume kinds in both forms, so policy can name them', () => {
    const spec = { volumes: [{ name: 'h', hostPath: { path: '/etc' } }] };
    expect(strict.ResourceSpec.parse(spec)).toEqual(spec);
    expect(tolerant.ResourceSpec.parse(spec)).toEqual(spec);
  });

  it('refuses a __proto__ key in free-form maps instead of dropping it silently (found by the round-trip property)', () => {
    for (const body of [
      '{"labels": {"__proto__": "x"}}',
      '{"sidecars": [{"name": "s", "securityContext": {"__proto__": {}}}]}',
      '{"init_containers": [{"name": "s", "resources": {"limits": {"__proto__": 1}}}]}',
    ]) {
      const result = strict.ResourceSpec.safeParse(JSON.parse(body));
      expect(result.success).toBe(false);
      expect(tolerant.ResourceSpec.safeParse(JSON.parse(body)).success).toBe(false);
    }
    expect(strict.ResourceSpec.parse(JSON.parse('{"labels": {"proto": "x"}}'))).toEqual({
      labels: { proto: 'x' },
    });
  });

  it('does not accept repo_commit_sha in request bodies, but does in responses', () => {
    expect(
      strict.DeploymentPatch.safeParse({ source_revision_config: { repo_commit_sha: 'a' } }).success,
    ).toBe(false);
    expect(strict.SourceRevisionConfig.safeParse({ repo_commit_sha: 'a' }).success).toBe(true);
  });

  it('requires every repository field', () => {
    const repo = {
      host_integration_id: '11111111-1111-4111-8111-111111111111',
      id: 1,
      name: 'a',
      owner: 'b',
      url: 'u',
      default_branch: 'main',
    };
    expect(strict.Repository.safeParse(repo).success).toBe(true);
    for (const key of Object.keys(repo)) {
      const { [key as keyof typeof repo]: _gone, ...rest } = repo;
      expect(strict.Repository.safeParse(rest).success).toBe(false);
    }
  });
});

describe('query schemas', () => {
  it('applies paging defaults and bounds', () => {
    expect(PageQuery.parse({})).toEqual({ limit: 20, offset: 0 });
    expect(PageQuery.parse({ limit: '100', offset: '5' })).toEqual({ limit: 100, offset: 5 });
    expect(PageQuery.parse({ limit: '007', offset: '00' })).toEqual({ limit: 7, offset: 0 });
    for (const bad of [
      { limit: '0' },
      { limit: '101' },
      { offset: '-1' },
      { limit: '2.5' },
      { limit: 'x' },
      // What Number() coerces: plain decimal digits only.
      { limit: '0x10' },
      { limit: '1e1' },
      { offset: '' },
      { limit: '+5' },
      { limit: ' 5' },
      { limit: '5.0' },
      { offset: '-0' },
    ]) {
      expect(PageQuery.safeParse(bad).success).toBe(false);
    }
  });

  it('parses comma lists (trimmed; empty items refused) and booleans as the public API reads them', () => {
    const q = DeploymentListQuery.parse({
      deployment_ids: ' 11111111-1111-4111-8111-111111111111 ,22222222-2222-4222-8222-222222222222',
      tag_value_ids: 'a, b',
      remote_reconciled: 'false',
    });
    expect(q.deployment_ids).toHaveLength(2);
    expect(q.tag_value_ids).toEqual(['a', 'b']);
    expect(q.remote_reconciled).toBe(false);
    expect(DeploymentListQuery.safeParse({ tag_value_ids: 'a,,b' }).success).toBe(false);
    for (const word of ['true', 'True', 'TRUE', '1', 'yes', 'Yes', 'on', 't', 'y']) {
      expect(DeploymentListQuery.parse({ remote_reconciled: word }).remote_reconciled).toBe(true);
    }
    for (const word of ['false', 'False', '0', 'no', 'off', 'f', 'n']) {
      expect(RevisionListQuery.parse({ remote_reconciled: word }).remote_reconciled).toBe(false);
    }
    for (const word of ['', 'ture', '2', 'yess', ' true', 'null']) {
      expect(DeploymentListQuery.safeParse({ remote_reconciled: word }).success).toBe(false);
    }
    expect(RevisionListQuery.parse({ status: 'DEPLOYED, QUEUED' }).status).toEqual(['DEPLOYED', 'QUEUED']);
    expect(RevisionListQuery.safeParse({ status: 'DEPLOYED,RUNNING' }).success).toBe(false);
  });

  it('refuses unknown parameters', () => {
    expect(DeploymentListQuery.safeParse({ nme: 'x' }).success).toBe(false);
    expect(TokenListQuery.safeParse({ provider: 'x' }).success).toBe(false);
  });
});
