import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { RequestRecord } from '../../src/sandbox/request-log.ts';
import { agentAccesses } from '../support/access-record.ts';
import { ungrantedRecordedAccesses } from '../support/rbac-run-check.ts';

const record = (r: Partial<RequestRecord>): RequestRecord => ({
  time: '',
  method: 'GET',
  path: '/',
  verb: 'get',
  group: 'apps',
  version: 'v1',
  resource: 'deployments',
  namespace: 'team',
  status: 200,
  write: false,
  dryRun: false,
  userAgent: 'mooring/1.0.0 (a)',
  ...r,
});

describe("the run's record of the agent's accesses", () => {
  it("keeps the agent's requests only; the Lease and the restart memo are in the release namespace, namespace checks in watched ones", () => {
    const kube = {
      requests: () => [
        record({}),
        record({ verb: 'watch', userAgent: 'kubectl/v1.35' }),
        record({ verb: 'update', group: 'coordination.k8s.io', resource: 'leases' }),
        record({ group: '', resource: 'namespaces', namespace: '', name: 'ghost' }),
        record({ verb: 'update', group: '', resource: 'configmaps', name: 'mooring-restart-memo' }),
        record({ verb: 'create', group: '', resource: 'configmaps' }),
        record({ verb: 'get', group: '', resource: 'configmaps', name: 'app-settings' }),
      ],
    };
    expect(agentAccesses(kube, ['team'])).toEqual([
      'create core/configmaps @release',
      'get apps/deployments @watched',
      'get core/configmaps @watched',
      'get core/namespaces @watched',
      'update coordination.k8s.io/leases @release',
      'update core/configmaps @release',
    ]);
  });

  const dir = mkdtempSync(path.join(tmpdir(), 'mooring-rbac-record-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('fails the run on a use the chart does not grant, and passes what it grants', () => {
    writeFileSync(path.join(dir, 'a.json'), JSON.stringify(['patch apps/deployments @watched']));
    writeFileSync(path.join(dir, 'b.json'), JSON.stringify(['delete core/persistentvolumeclaims @watched']));
    expect(ungrantedRecordedAccesses(dir)).toEqual([]);
    writeFileSync(
      path.join(dir, 'c.json'),
      JSON.stringify(['update apps/deployments @watched', 'create core/events @release']),
    );
    expect(ungrantedRecordedAccesses(dir)).toEqual([
      'create core/events @release',
      'update apps/deployments @watched',
    ]);
  });
});
