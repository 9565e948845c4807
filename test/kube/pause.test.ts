/** The pause annotation as the listing, the shortcut and pruning read it (src/kube/pause.ts). */
import { describe, expect, it } from 'vitest';
import { slim } from '../../src/kube/compact-live.ts';
import { refuseDelete } from '../../src/kube/delete.ts';
import { isPaused, PAUSED_NOTE } from '../../src/kube/pause.ts';
import type { KubeObject } from '../../src/objects/kube-object.ts';
import { shortcut } from '../../src/reconcile/converged.ts';

const LISTENER = '5b0e8f7a-3c2d-4e1f-8a9b-0c1d2e3f4a5b';

function service(annotations?: Record<string, string>): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: {
      name: 'calm-redis',
      namespace: 'apps',
      uid: 'u1',
      resourceVersion: '7',
      labels: {
        'app.kubernetes.io/managed-by': 'mooring',
        'mooring.dev/listener-id': LISTENER,
        'mooring.dev/deployment-id': 'd1',
      },
      ...(annotations ? { annotations } : {}),
      managedFields: [{ manager: 'mooring', operation: 'Apply' }],
    },
    spec: { ports: [{ port: 6379 }] },
  };
}

describe('pause annotation', () => {
  it('the slim listing entry keeps the pause annotation and no other', () => {
    const entry = slim(service({ 'mooring.dev/reconcile': 'disabled', 'other/x': 'y' }), 'mooring');
    expect(entry.metadata.annotations).toEqual({ 'mooring.dev/reconcile': 'disabled' });
    expect(isPaused(entry)).toBe(true);
    expect(slim(service({ 'other/x': 'y' }), 'mooring').metadata.annotations).toBeUndefined();
  });

  it('only the value disabled pauses', () => {
    expect(isPaused(service({ 'mooring.dev/reconcile': 'enabled' }))).toBe(false);
    expect(isPaused(service())).toBe(false);
  });

  it('a paused object is never pruned', () => {
    const opts = { deleteVolumes: false, listenerId: LISTENER };
    expect(refuseDelete(service({ 'mooring.dev/reconcile': 'disabled' }), 'mooring', opts)).toBe(PAUSED_NOTE);
    expect(refuseDelete(service(), 'mooring', opts)).toBeUndefined();
  });

  it('the resync shortcut declines a deployment with a paused object, verified or not', () => {
    const pass = { key: 'k', objects: 1, claimPrefixes: [] };
    const verified = () => true;
    expect(shortcut(pass, [service()], verified)).toBeDefined();
    expect(shortcut(pass, [service({ 'mooring.dev/reconcile': 'disabled' })], verified)).toBeUndefined();
  });
});
