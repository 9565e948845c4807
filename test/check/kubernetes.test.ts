/** The Kubernetes checks of `mooring check`, each shown failing for its own cause. */
import { describe, expect, it } from 'vitest';
import { exposureCheck, kubernetesVersionCheck, namespaceChecks } from '../../src/check/kubernetes.ts';
import { defaultExposureSettings } from '../../src/render/exposure-settings.ts';
import { fakeKube } from './fake-kube.ts';

const HTTPROUTE_SERVED = {
  '/apis/gateway.networking.k8s.io/v1': { body: { resources: [{ name: 'httproutes', kind: 'HTTPRoute' }] } },
};
const INGRESS_SERVED = {
  '/apis/networking.k8s.io/v1': {
    body: {
      resources: [
        { name: 'ingresses', kind: 'Ingress' },
        { name: 'ingressclasses', kind: 'IngressClass' },
      ],
    },
  },
};

describe('Kubernetes API reachable and its version supported', () => {
  it('passes on 1.27 and newer', async () => {
    const kube = fakeKube({ '/version': { body: { major: '1', minor: '31+', gitVersion: 'v1.31.2' } } });
    expect((await kubernetesVersionCheck(kube, 'https://k')).check.status).toBe('ok');
  });

  it('fails on a version older than 1.27', async () => {
    const kube = fakeKube({ '/version': { body: { major: '1', minor: '26', gitVersion: 'v1.26.9' } } });
    const { check } = await kubernetesVersionCheck(kube, 'https://k');
    expect(check).toMatchObject({
      status: 'fail',
      detail: 'https://k runs v1.26.9; mooring supports 1.27 or newer',
    });
  });

  it('fails, naming the server, when the API cannot be reached', async () => {
    const kube = fakeKube({ '/version': 503 });
    const { check, answer } = await kubernetesVersionCheck(kube, 'https://k');
    expect(check.status).toBe('fail');
    expect(check.code).toBe('MOORING_E_KUBE_SERVER');
    expect(check.detail).toMatch(/^https:\/\/k: /);
    expect(answer).toBeUndefined();
  });
});

describe('namespaces exist and their Pod Security level', () => {
  const ns = (labels: Record<string, string>) => ({ body: { metadata: { name: 'apps', labels } } });

  it('fails for a namespace that does not exist, saying how to create it', async () => {
    const [r] = await namespaceChecks(fakeKube({}), ['apps'], 'baseline');
    expect(r).toMatchObject({ status: 'fail', detail: 'does not exist', code: 'MOORING_E_KUBE_NOT_FOUND' });
    expect(r!.fix).toContain('kubectl create namespace apps');
  });

  it('fails when the namespace enforces a stricter level than the agent renders', async () => {
    const kube = fakeKube({
      '/api/v1/namespaces/apps': ns({ 'pod-security.kubernetes.io/enforce': 'restricted' }),
    });
    const [r] = await namespaceChecks(kube, ['apps'], 'baseline');
    expect(r!.status).toBe('fail');
    expect(r!.detail).toBe(
      'enforces Pod Security restricted, but the agent renders baseline pods: they would be refused',
    );
    expect(r!.fix).toContain('--pod-security restricted');
  });

  it('warns when the namespace enforces nothing, and passes when it enforces the same level', async () => {
    const none = await namespaceChecks(
      fakeKube({ '/api/v1/namespaces/apps': ns({}) }),
      ['apps'],
      'restricted',
    );
    expect(none[0]).toMatchObject({ status: 'warn' });
    expect(none[0]!.fix).toContain('pod-security.kubernetes.io/enforce=restricted');
    const same = fakeKube({
      '/api/v1/namespaces/apps': ns({ 'pod-security.kubernetes.io/enforce': 'restricted' }),
    });
    expect((await namespaceChecks(same, ['apps'], 'restricted'))[0]!.status).toBe('ok');
  });
});

describe('exposure kinds served', () => {
  it('fails when exposure is through HTTPRoute and the Gateway API is not installed', async () => {
    const { checks } = await exposureCheck(fakeKube({}), {
      kind: 'httproute',
      gateway: { name: 'gw', namespace: 'gateways' },
    });
    expect(checks[0]).toMatchObject({ status: 'fail', code: 'MOORING_E_EXPOSURE_UNAVAILABLE' });
    expect(checks[0]!.fix).toContain('Gateway API CRDs');
  });

  it('fails when the named Gateway does not exist, passes when it does', async () => {
    const exposure = { kind: 'httproute' as const, gateway: { name: 'gw', namespace: 'gateways' } };
    const absent = await exposureCheck(fakeKube(HTTPROUTE_SERVED), exposure);
    expect(absent.checks[0]!.detail).toBe('HTTPRoute served, but Gateway gateways/gw does not exist');
    const present = await exposureCheck(
      fakeKube({
        ...HTTPROUTE_SERVED,
        '/apis/gateway.networking.k8s.io/v1/namespaces/gateways/gateways/gw': { body: {} },
      }),
      exposure,
    );
    expect(present.checks[0]!.status).toBe('ok');
    expect(present.httpRouteServed).toBe(true);
  });

  it('fails when the IngressClass does not exist; warns when it may not be read', async () => {
    const exposure = { kind: 'ingress' as const, ingressClassName: 'nginx' };
    const absent = await exposureCheck(fakeKube(INGRESS_SERVED), exposure);
    expect(absent.checks[0]).toMatchObject({
      status: 'fail',
      detail: 'Ingress served, but IngressClass nginx does not exist',
    });
    const forbidden = await exposureCheck(
      fakeKube({ ...INGRESS_SERVED, '/apis/networking.k8s.io/v1/ingressclasses/nginx': 403 }),
      exposure,
    );
    expect(forbidden.checks[0]!.status).toBe('warn');
  });

  it('passes with exposure off', async () => {
    const { checks } = await exposureCheck(fakeKube({}), defaultExposureSettings());
    expect(checks[0]!.status).toBe('ok');
  });
});
