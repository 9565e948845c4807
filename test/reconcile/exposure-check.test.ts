/**
 * The start-up check of the exposure kind against the sandbox, with and without the Gateway API
 * CRDs: a served kind joins the inventory listing, a missing one is one coded warning line and
 * exposure off, never a failed listing.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { checkExposureKind, StartUpRenderSettings } from '../../src/reconcile/exposure-check.ts';
import { servesKind } from '../../src/kube/exposure-discovery.ts';
import { defaultRenderSettings, type ExposureSettings, type RenderSettings } from '../../src/render/index.ts';
import { HTTPROUTE_CRD } from '../../src/sandbox/resources.ts';
import { type KubeApi, startKubeApi } from '../../src/sandbox/server.ts';
import { capturedLogger, kubeOf, managerFor } from '../kube/sandbox.ts';

const LISTENER = '0b7f5a52-3c1e-4f0a-9d2b-6f1e2d3c4b5a';
const ROUTE: ExposureSettings = { kind: 'httproute', gateway: { name: 'public', namespace: 'gateways' } };

function settingsWith(exposure: ExposureSettings): RenderSettings {
  return { ...defaultRenderSettings(LISTENER), exposure };
}

describe('exposure kind check at start', () => {
  let api: KubeApi | undefined;
  afterEach(async () => {
    await api?.close();
    api = undefined;
  });

  async function check(exposure: ExposureSettings, crds: string[] = []) {
    api = await startKubeApi({ namespaces: ['apps'], crds });
    const resources = managerFor(api);
    const kube = kubeOf(api);
    const log = capturedLogger();
    const settings = await checkExposureKind(
      { serves: (info) => servesKind(kube, info), resources, logger: log.logger },
      settingsWith(exposure),
    );
    api.clearRequests();
    await resources.listOwned({ namespaces: ['apps'], listenerId: LISTENER });
    const listed = api.requests({ verb: 'list' }).map((r) => r.resource);
    return { settings, log, listed, resources };
  }

  /** The exposure kinds a cycle listing (slim, of every deployment) asks for. */
  async function cycleListed(resources: Awaited<ReturnType<typeof check>>['resources']): Promise<string[]> {
    api?.clearRequests();
    await resources.listOwned({ namespaces: ['apps'], listenerId: LISTENER, slim: true });
    return (api?.requests({ verb: 'list' }) ?? [])
      .map((r) => r.resource)
      .filter((r) => r === 'ingresses' || r === 'httproutes')
      .sort();
  }

  it('HTTPRoute without the Gateway API CRDs: one coded warning, exposure off, listings still complete', async () => {
    const { settings, log, listed } = await check(ROUTE);
    expect(settings.exposure).toEqual({ kind: 'none' });
    const warnings = log.lines().filter((l) => l.code === 'MOORING_E_EXPOSURE_UNAVAILABLE');
    expect(warnings).toHaveLength(1);
    expect(String(warnings[0]?.msg)).toContain('gateway.networking.k8s.io/v1 HTTPRoute');
    expect(listed).not.toContain('httproutes');
  });

  it('HTTPRoute with the CRDs installed: exposure kept and httproutes listed (so they are pruned)', async () => {
    const { settings, log, listed } = await check(ROUTE, [HTTPROUTE_CRD]);
    expect(settings.exposure).toEqual(ROUTE);
    expect(log.lines().filter((l) => l.code === 'MOORING_E_EXPOSURE_UNAVAILABLE')).toEqual([]);
    expect(listed).toContain('httproutes');
    expect(listed).not.toContain('ingresses');
  });

  it('Ingress (built in): listed; exposure none lists neither kind', async () => {
    const ingress = await check({ kind: 'ingress' });
    expect(ingress.settings.exposure.kind).toBe('ingress');
    expect(ingress.listed).toContain('ingresses');
    await api?.close();
    const none = await check({ kind: 'none' });
    expect(none.listed.filter((r) => r === 'ingresses' || r === 'httproutes')).toEqual([]);
  });

  it('the kinds served but not in use join the first cycle listing once, so what they hold is pruned', async () => {
    const none = await check({ kind: 'none' });
    expect(await cycleListed(none.resources)).toEqual(['ingresses']);
    expect(await cycleListed(none.resources)).toEqual([]);
    await api?.close();
    const ingress = await check({ kind: 'ingress' }, [HTTPROUTE_CRD]);
    expect(await cycleListed(ingress.resources)).toEqual(['httproutes', 'ingresses']);
    expect(await cycleListed(ingress.resources)).toEqual(['ingresses']);
  });
});

describe('StartUpRenderSettings', () => {
  it('renders with its settings until the start-up check turns exposure off, then without', async () => {
    const rendering = new StartUpRenderSettings(settingsWith(ROUTE));
    expect(rendering.exposesUrls()).toBe(true);
    const log = capturedLogger();
    await rendering.check({
      serves: async () => false,
      resources: { alsoList: () => {}, listOnceMore: () => {} },
      logger: log.logger,
    });
    expect(rendering.current.exposure).toEqual({ kind: 'none' });
    expect(rendering.exposesUrls()).toBe(false);
  });
});
