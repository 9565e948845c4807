/** The permission check of `mooring check`: what the agent needs, asked through access reviews. */
import { describe, expect, it } from 'vitest';
import { accessText, permissionChecks, requiredAccess } from '../../src/check/permissions.ts';
import type { KubeRequest } from '../../src/kube/http.ts';
import { fakeKube } from './fake-kube.ts';

const CONFIG = {
  namespaces: ['apps', 'web'],
  deleteVolumes: false,
  leaderElection: true,
  leaseName: 'mooring-leader',
  leaseNamespace: 'mooring',
  restartMemo: undefined,
  watch: true,
};

/** An access review answered allowed unless its verb and resource are in `deny` (`verb resource`). */
function reviews(deny: ReadonlySet<string>) {
  return fakeKube({
    'POST /apis/authorization.k8s.io/v1/selfsubjectaccessreviews': (req: KubeRequest) => {
      const a = (req.body as { spec: { resourceAttributes: Record<string, string> } }).spec
        .resourceAttributes;
      return { body: { status: { allowed: !deny.has(`${a.namespace} ${a.verb} ${a.resource}`) } } };
    },
  });
}

describe('permissions (SelfSubjectAccessReview)', () => {
  it('with --watch=false, needs no watch', () => {
    const texts = requiredAccess({ ...CONFIG, watch: false }, 'none', false).map(accessText);
    expect(texts.filter((t) => t.startsWith('watch '))).toEqual([]);
  });

  it('needs what the chart grants: full verbs on workloads, list on claims, the Lease by name', () => {
    const texts = requiredAccess(CONFIG, 'none', false)
      .filter((a) => a.namespace === 'apps')
      .map(accessText);
    expect(texts).toContain('patch deployments.apps');
    expect(texts).toContain('list persistentvolumeclaims');
    expect(texts).not.toContain('delete persistentvolumeclaims');
    expect(texts).toContain('list ingresses.networking.k8s.io');
    expect(texts).not.toContain('create ingresses.networking.k8s.io');
    expect(texts).toContain('create events');
    expect(texts).toContain('get namespaces/apps');
    expect(texts).toContain('watch deployments.apps');
    expect(texts).toContain('watch persistentvolumeclaims');
    expect(texts).not.toContain('watch ingresses.networking.k8s.io');
    const lease = requiredAccess(CONFIG, 'none', false)
      .filter((a) => a.namespace === 'mooring')
      .map(accessText);
    expect(lease).toEqual([
      'create leases.coordination.k8s.io',
      'get leases.coordination.k8s.io/mooring-leader',
      'update leases.coordination.k8s.io/mooring-leader',
    ]);
  });

  it('with shards, needs each shard Lease, membership slot and restart memo (each of its parts) by name', () => {
    const own = requiredAccess({ ...CONFIG, shards: 2, restartMemo: 'memo' }, 'none', false)
      .filter((a) => a.namespace === 'mooring' && a.verb === 'get')
      .map(accessText);
    expect(own).toEqual([
      'get leases.coordination.k8s.io/mooring-leader-0',
      'get leases.coordination.k8s.io/mooring-leader-1',
      'get leases.coordination.k8s.io/mooring-leader-member-0',
      'get leases.coordination.k8s.io/mooring-leader-member-1',
      'get leases.coordination.k8s.io/mooring-leader',
      // Each memo's parts past 1 MiB, in two sets (MEMO_PARTS in restart-memo-store.ts).
      ...['memo-0', 'memo-1'].flatMap((m) =>
        [
          m,
          ...[2, 3, 4, 5, 6].map((p) => `${m}-part${p}`),
          ...[2, 3, 4, 5, 6].map((p) => `${m}-alt-part${p}`),
        ].map((n) => `get configmaps/${n}`),
      ),
    ]);
  });

  it('passes when every review is allowed: one line per namespace', async () => {
    const results = await permissionChecks(reviews(new Set()), requiredAccess(CONFIG, 'none', false));
    expect(results.map((r) => `${r.check} ${r.status}`)).toEqual([
      'permissions in namespace apps ok',
      'permissions in namespace web ok',
      'permissions in namespace mooring ok',
    ]);
  });

  it('fails in the namespace where one is missing, naming it', async () => {
    const kube = reviews(new Set(['web delete secrets']));
    const results = await permissionChecks(kube, requiredAccess(CONFIG, 'none', false));
    const web = results.find((r) => r.check === 'permissions in namespace web')!;
    expect(web).toMatchObject({ status: 'fail', code: 'MOORING_E_KUBE_FORBIDDEN' });
    expect(web.detail).toMatch(/^1 of \d+ missing: delete secrets$/);
    expect(results.find((r) => r.check === 'permissions in namespace apps')!.status).toBe('ok');
  });

  it('fails once when access reviews cannot be made at all', async () => {
    const results = await permissionChecks(fakeKube({}), requiredAccess(CONFIG, 'none', false));
    expect(results).toHaveLength(1);
    expect(results[0]!.status).toBe('fail');
  });
});
