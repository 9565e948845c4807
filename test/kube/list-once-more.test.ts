/**
 * The exposure kinds not in use join the next cycle listing once (exposure-check.ts), so that the
 * routes an earlier setting left are pruned; a Role that does not allow listing them only leaves
 * them out, with one warning naming the clean-up, and the listing is still complete.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KubeApiError } from '../../src/kube/http.ts';
import { ResourceManager } from '../../src/kube/resource-manager.ts';
import { kindInfo } from '../../src/objects/kinds.ts';
import type { KubeObject } from '../../src/objects/kube-object.ts';
import { type KubeApi, startKubeApi } from '../../src/sandbox/server.ts';
import { basicSet, DEPLOYMENT, LISTENER, labels } from './fixtures.ts';
import { capturedLogger, kubeOf, managerFor } from './sandbox.ts';

const NS = 'once';
const INGRESS = kindInfo('Ingress')!;
let api: KubeApi;

const leftover: KubeObject = {
  apiVersion: 'networking.k8s.io/v1',
  kind: 'Ingress',
  metadata: { name: 'app', namespace: NS, labels: labels('exposure') },
  spec: {
    rules: [
      {
        host: 'app.example.com',
        http: {
          paths: [
            { path: '/', pathType: 'Prefix', backend: { service: { name: 'app', port: { number: 8000 } } } },
          ],
        },
      },
    ],
  },
};

beforeAll(async () => {
  api = await startKubeApi({ namespaces: [NS] });
  await managerFor(api).applyAll([...basicSet(NS), leftover]);
});
afterAll(async () => {
  await api?.close();
});

const cycle = (rm: ResourceManager) => rm.listOwned({ namespaces: [NS], listenerId: LISTENER, slim: true });
const kinds = (objects: readonly KubeObject[]) => [...new Set(objects.map((o) => o.kind))].sort();

describe('listOnceMore', () => {
  it('adds the kinds to the next cycle listing only', async () => {
    const rm = new ResourceManager({ kube: kubeOf(api) });
    rm.listOnceMore([INGRESS]);
    // A deployment's own listing does not take them.
    const own = await rm.listOwned({
      namespaces: [NS],
      listenerId: LISTENER,
      deploymentId: DEPLOYMENT,
    });
    expect(kinds(own.objects)).not.toContain('Ingress');
    expect(kinds((await cycle(rm)).objects)).toContain('Ingress');
    expect(kinds((await cycle(rm)).objects)).not.toContain('Ingress');
  });

  it('leaves out a kind it may not list, with one warning, and the listing is complete', async () => {
    const { logger, lines } = capturedLogger();
    const kube = kubeOf(api);
    const send = kube.request.bind(kube);
    kube.request = async (req) => {
      if (req.method === 'GET' && req.path.includes('/ingresses')) throw new KubeApiError(403, {}, 'GET');
      return send(req);
    };
    const rm = new ResourceManager({ kube, logger });
    rm.listOnceMore([INGRESS]);
    const listed = await cycle(rm);
    expect(kinds(listed.objects)).toEqual(kinds(basicSet(NS)));
    const warnings = lines().filter((l) => l.level === 'warn');
    expect(warnings).toHaveLength(1);
    expect(String(warnings[0]?.msg)).toContain(
      `kubectl delete ingresses -A -l mooring.dev/listener-id=${LISTENER}`,
    );
  });
});
