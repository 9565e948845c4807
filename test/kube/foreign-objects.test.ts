import { describe, expect, it } from 'vitest';
import { MooringError } from '../../src/errors.ts';
import { ForeignObjects } from '../../src/kube/foreign-objects.ts';
import { KubeApiError } from '../../src/kube/http.ts';
import type { KubeObject } from '../../src/objects/kube-object.ts';

/** A client answering list calls from `items` by kind, recording each call's kind and selector. */
function fakeClient(items: Record<string, KubeObject[]>) {
  const calls: string[] = [];
  let fail = false;
  return {
    calls,
    failNext: () => (fail = true),
    client: {
      list: async (
        _v: string,
        kind: string,
        ns: string,
        selector: string,
        each: (o: KubeObject) => KubeObject,
      ) => {
        calls.push(`${kind} ${ns} ${selector}`);
        if (fail) {
          fail = false;
          throw new Error('down');
        }
        return (items[kind] ?? []).map((o) => each(structuredClone(o)));
      },
    },
  };
}

const claim: KubeObject = {
  apiVersion: 'v1',
  kind: 'PersistentVolumeClaim',
  metadata: { name: 'data-orders-postgres-0', labels: { 'mooring.dev/listener-id': 'other' }, uid: 'u' },
};
const service = {
  apiVersion: 'v1',
  kind: 'Service',
  metadata: { name: 'payments', namespace: 'apps' },
  spec: { selector: { app: 'payments' } },
} as KubeObject;

describe('ForeignObjects: what the listener-scoped listing does not hold, once per namespace per cycle', () => {
  it("lists other listeners' claims and unmanaged selectors by selector, once per cycle; keeps names, labels and selectors only", async () => {
    const { client, calls } = fakeClient({ PersistentVolumeClaim: [claim], Service: [service] });
    const foreign = new ForeignObjects(client, 'mine');
    const claims = await foreign.claims('apps');
    expect(claims.get('data-orders-postgres-0')?.metadata).toEqual({
      name: 'data-orders-postgres-0',
      namespace: 'apps',
      labels: { 'mooring.dev/listener-id': 'other' },
    });
    expect(await foreign.selectors('apps')).toEqual([
      {
        id: 'Service/apps/payments',
        selectors: [{ selector: { matchLabels: { app: 'payments' } }, role: 'selects as its backends' }],
      },
    ]);
    await foreign.claims('apps');
    await foreign.selectors('apps');
    expect(calls).toEqual([
      'PersistentVolumeClaim apps app.kubernetes.io/managed-by=mooring,mooring.dev/listener-id!=mine',
      'Service apps app.kubernetes.io/managed-by!=mooring',
      'NetworkPolicy apps app.kubernetes.io/managed-by!=mooring',
    ]);
    foreign.reset();
    await foreign.claims('apps');
    expect(calls).toHaveLength(4);
  });

  it('does not keep a failed listing', async () => {
    const { client, calls, failNext } = fakeClient({});
    const foreign = new ForeignObjects(client, 'mine');
    failNext();
    await expect(foreign.claims('apps')).rejects.toThrow('down');
    expect((await foreign.claims('apps')).size).toBe(0);
    expect(calls).toHaveLength(2);
  });

  it("gives a failed list's cause as a coded error, not an unexpected one", async () => {
    const answering = (status: number) => ({
      list: async () => {
        throw new KubeApiError(status, { kind: 'Status', code: status }, 'GET');
      },
    });
    const claims = new ForeignObjects(answering(500), 'mine').claims('apps');
    await expect(claims).rejects.toBeInstanceOf(MooringError);
    await expect(claims).rejects.toMatchObject({
      code: 'MOORING_E_KUBE_SERVER',
      message: 'PersistentVolumeClaim/apps/*: list server answered 500',
    });
    await expect(new ForeignObjects(answering(403), 'mine').selectors('apps')).rejects.toMatchObject({
      code: 'MOORING_E_KUBE_FORBIDDEN',
      message: expect.stringMatching(/^Service\/apps\/\*: list refused \(403\)/),
    });
  });
});
