import { describe, expect, it } from 'vitest';
import type { RequestRecord } from '../../src/sandbox/request-log.ts';
import { chartInstall } from './chart-roles.ts';
import { RELEASE } from './helm.ts';
import { accessesOf, compareUsage, grantedAccesses } from './rbac-usage.ts';

const scopes = { watched: ['apps'], release: RELEASE.namespace };

const record = (r: Partial<RequestRecord>): RequestRecord => ({
  time: '',
  method: 'GET',
  path: '/',
  verb: 'get',
  group: 'apps',
  version: 'v1',
  resource: 'deployments',
  namespace: 'apps',
  status: 200,
  write: false,
  dryRun: false,
  ...r,
});

describe('accessesOf', () => {
  it('counts an apply as a patch, and one that created the object as a create too', () => {
    expect(accessesOf(record({ verb: 'apply', status: 200 }), scopes)).toEqual([
      'patch apps/deployments @watched',
    ]);
    expect(accessesOf(record({ verb: 'apply', status: 201 }), scopes)).toEqual([
      'patch apps/deployments @watched',
      'create apps/deployments @watched',
    ]);
  });

  it('places a GET of a namespace in that namespace, and the Lease in the release namespace', () => {
    const ns = record({ group: '', resource: 'namespaces', name: 'apps' });
    delete ns.namespace;
    expect(accessesOf(ns, scopes)).toEqual(['get core/namespaces @watched']);
    expect(
      accessesOf(
        record({ verb: 'update', group: 'coordination.k8s.io', resource: 'leases', namespace: 'mooring' }),
        scopes,
      ),
    ).toEqual(['update coordination.k8s.io/leases @release']);
  });
});

describe('compareUsage against the rendered chart', () => {
  const { roles } = chartInstall([{ namespaces: ['apps'], leaderElection: { enabled: true } }]);
  const granted = grantedAccesses(roles, scopes);

  it('finds nothing when exactly what is granted was used', () => {
    expect(granted.size).toBeGreaterThan(30);
    expect(compareUsage(granted, granted)).toEqual({ unused: [], missing: [] });
  });

  it('reports a verb the chart grants and the agent never used', () => {
    const widened = roles.map((role) =>
      role.metadata.namespace === 'apps'
        ? {
            ...role,
            rules: [
              ...(role.rules ?? []),
              { apiGroups: ['apps'], resources: ['deployments'], verbs: ['deletecollection'] },
            ],
          }
        : role,
    );
    expect(compareUsage(granted, grantedAccesses(widened, scopes))).toEqual({
      unused: ['deletecollection apps/deployments @watched'],
      missing: [],
    });
  });

  it('reports a verb the agent used and the chart does not grant', () => {
    const used = [...granted, 'update apps/deployments @watched'];
    expect(compareUsage(used, granted)).toEqual({
      unused: [],
      missing: ['update apps/deployments @watched'],
    });
  });
});
