import { describe, expect, it } from 'vitest';
import type { ResourceSpecRecord } from '../../src/contract/index.ts';
import { type RenderedObject, type RenderSettings, renderDeployment } from '../../src/render/index.ts';
import { checkRenderedReferences } from '../../src/render/references.ts';
import { defaultReferenceSettings, type ReferenceSettings } from '../../src/render/reference-settings.ts';
import { deployment, settings } from './fixtures.ts';
import { errorOf } from './helpers.ts';

const S = 'source_config.resource_spec';
/** The fixture deployment's tenant. */
const TENANT = '3e2d1c0b-9a8f-4e7d-8c6b-5a4f3e2d1c0b';
const OTHER_TENANT = 'a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d';

function withReferences(references: Partial<ReferenceSettings>): RenderSettings {
  return settings({ references: { ...defaultReferenceSettings(), ...references } });
}

function render(
  spec: ResourceSpecRecord,
  references: Partial<ReferenceSettings> = {},
  extra: Parameters<typeof deployment>[0] = {},
) {
  const settings = withReferences(references);
  // The CSI form below names this driver: allowed, so that the Secret reference is what is judged.
  settings.policy = { ...settings.policy, allowedCsiDrivers: ['d.example.com'] };
  return renderDeployment({ deployment: deployment({ spec, ...extra }), settings });
}

/** Every way a ResourceSpec can name a Secret: [form, spec naming `secret`, field of the name]. */
const SECRET_FORMS: Array<[string, (secret: string) => ResourceSpecRecord, string]> = [
  [
    'sidecar env secretKeyRef',
    (n) => ({
      sidecars: [{ name: 's', env: [{ name: 'X', valueFrom: { secretKeyRef: { name: n, key: 'k' } } }] }],
    }),
    'sidecars[0].env[0].valueFrom.secretKeyRef.name',
  ],
  [
    'native sidecar env secretKeyRef',
    (n) => ({
      sidecars: [
        {
          name: 's',
          restartPolicy: 'Always',
          env: [{ name: 'X', valueFrom: { secretKeyRef: { name: n, key: 'k' } } }],
        },
      ],
    }),
    'sidecars[0].env[0].valueFrom.secretKeyRef.name',
  ],
  [
    'init container env secretKeyRef',
    (n) => ({
      init_containers: [
        {
          name: 'i',
          env: [
            { name: 'A', value: 'plain' },
            { name: 'X', valueFrom: { secretKeyRef: { name: n, key: 'POSTGRES_PASSWORD' } } },
          ],
        },
      ],
    }),
    'init_containers[0].env[1].valueFrom.secretKeyRef.name',
  ],
  [
    'sidecar envFrom secretRef',
    (n) => ({ sidecars: [{ name: 's', envFrom: [{ secretRef: { name: n } }] }] }),
    'sidecars[0].envFrom[0].secretRef.name',
  ],
  [
    'init container envFrom secretRef',
    (n) => ({
      init_containers: [
        { name: 'i', envFrom: [{ configMapRef: { name: 'cm' } }, { prefix: 'P_', secretRef: { name: n } }] },
      ],
    }),
    'init_containers[0].envFrom[1].secretRef.name',
  ],
  [
    'secret volume',
    (n) => ({ volumes: [{ name: 'v', secret: { secretName: n } }] }),
    'volumes[0].secret.secretName',
  ],
  [
    'projected volume secret source',
    (n) => ({
      volumes: [
        { name: 'cfg', configMap: { name: 'cm' } },
        { name: 'v', projected: { sources: [{ configMap: { name: 'cm' } }, { secret: { name: n } }] } },
      ],
    }),
    'volumes[1].projected.sources[1].secret.name',
  ],
  [
    'CSI volume nodePublishSecretRef',
    (n) => ({
      volumes: [{ name: 'v', csi: { driver: 'd.example.com', nodePublishSecretRef: { name: n } } }],
    }),
    'volumes[0].csi.nodePublishSecretRef.name',
  ],
  [
    'image pull secret',
    (n) => ({ image_pull_secrets: [{ name: 'regcred' }, { name: n }] }),
    'image_pull_secrets[1].name',
  ],
];

describe("another deployment's mooring-managed Secrets", () => {
  const cases = SECRET_FORMS.flatMap(([form, spec, field]) =>
    ['billing-env', 'billing-postgres-credentials', 'shop-api-env-env'].map(
      (secret) => [form, secret, spec(secret), field] as const,
    ),
  );

  it.each(cases)('%s naming %s is refused', (_form, secret, spec, field) => {
    const err = errorOf(() => render(spec));
    expect(err.code).toBe('MOORING_E_RENDER_POLICY');
    expect(err.field).toBe(`${S}.${field}`);
    expect(err.message).toContain(`${field} "${secret}"`);
    expect(err.message).toContain('another deployment');
  });

  it.each(
    SECRET_FORMS.flatMap(([form, spec]) =>
      ['shop-api-env', 'shop-api-postgres-credentials', 'stripe-keys'].map(
        (secret) => [form, secret, spec(secret)] as const,
      ),
    ),
  )("%s naming %s (the deployment's own, or a user Secret) is allowed", (_form, secret, spec) => {
    const { objects } = render(spec);
    const api = objects.find((o) => o.kind === 'Deployment' && o.metadata.name === 'shop-api');
    expect(JSON.stringify(api)).toContain(`"${secret}"`);
  });

  it.each([
    ['billing-env', 'MOORING_E_RENDER_POLICY'],
    ['billing-postgres-credentials', 'MOORING_E_RENDER_POLICY'],
  ])('a secret_references entry naming %s is refused', (secret, code) => {
    const err = errorOf(() =>
      render({}, {}, { secret_references: [{ name: 'STOLEN', secret_name: secret, secret_key: 'k' }] }),
    );
    expect(err.code).toBe(code);
    expect(err.field).toBe('secret_references[0].secret_name');
    expect(err.message).toContain(`"${secret}"`);
  });

  it.each(['shop-api-env', 'shop-api-postgres-credentials', 'llm-keys'])(
    'a secret_references entry naming %s is allowed',
    (secret) => {
      const { objects } = render(
        {},
        {},
        { secret_references: [{ name: 'K', secret_name: secret, secret_key: 'k' }] },
      );
      expect(JSON.stringify(objects)).toContain(`{"key":"k","name":"${secret}"}`);
    },
  );

  it("a deployment whose name was altered owns the altered names, not the record's", () => {
    // "Shop API" becomes shop-api-<hash>: "shop-api-env" is then another deployment's Secret.
    const err = errorOf(() =>
      render({ volumes: [{ name: 'v', secret: { secretName: 'shop-api-env' } }] }, {}, { name: 'Shop API' }),
    );
    expect(err.field).toBe(`${S}.volumes[0].secret.secretName`);
  });
});

describe("Ingress certificates and the Secrets the operator's settings name (regression: readable by any record)", () => {
  const withTls = (tls: { secretName: string } | { clusterIssuer: string }) => {
    const operator = settings({
      exposure: { kind: 'ingress', tls, allowedHosts: ['*.example.com'] },
      datastoreImagePullSecrets: ['corp-registry'],
    });
    // The CSI form needs its driver allowed, or the driver is refused before its Secret is read.
    operator.policy = { ...operator.policy, allowedCsiDrivers: ['d.example.com'] };
    return operator;
  };
  const fixed = withTls({ secretName: 'corp-wildcard' });
  const issuer = withTls({ clusterIssuer: 'letsencrypt' });
  const renderWith = (
    spec: ResourceSpecRecord,
    extra: Parameters<typeof deployment>[0] = {},
    operator: RenderSettings = fixed,
  ) => renderDeployment({ deployment: deployment({ spec, ...extra }), settings: operator });
  /** [Secret, the settings under which it is refused]: a ClusterIssuer's certificates, the settings' own. */
  const refused: [string, RenderSettings][] = [
    ['billing-tls', issuer],
    ['shop-api-tls', issuer],
    ['corp-wildcard', fixed],
    ['corp-registry', fixed],
    ['corp-registry', issuer],
  ];
  const cases = SECRET_FORMS.flatMap(([form, spec, field]) =>
    refused.map(([secret, operator]) => [form, secret, spec(secret), field, operator] as const),
  );

  it.each(cases)('%s naming %s is refused', (_form, secret, spec, field, operator) => {
    const err = errorOf(() => renderWith(spec, {}, operator));
    expect(err.code).toBe('MOORING_E_RENDER_POLICY');
    expect(err.field).toBe(`${S}.${field}`);
    expect(err.message).toContain(`${field} "${secret}"`);
  });

  it.each(refused)('a secret_references entry naming %s is refused', (secret, operator) => {
    const refs = [{ name: 'STOLEN', secret_name: secret, secret_key: 'tls.key' }];
    expect(errorOf(() => renderWith({}, { secret_references: refs }, operator)).field).toBe(
      'secret_references[0].secret_name',
    );
  });

  it('a user Secret named *-tls is allowed where no ClusterIssuer names certificates so', () => {
    const { objects } = renderWith({ volumes: [{ name: 'v', secret: { secretName: 'team-tls' } }] });
    expect(JSON.stringify(objects)).toContain('"secretName":"team-tls"');
  });

  it("the datastores still pull with the operator's secret, and the Ingress still names its certificate", () => {
    const { objects } = renderWith({}, { custom_url: 'https://shop.example.com/' });
    const postgres = objects.find((o) => o.kind === 'StatefulSet' && o.metadata.name === 'shop-api-postgres');
    expect(JSON.stringify(postgres)).toContain('"imagePullSecrets":[{"name":"corp-registry"}]');
    expect(JSON.stringify(objects.find((o) => o.kind === 'Ingress'))).toContain(
      '"secretName":"corp-wildcard"',
    );
  });
});

describe('service accounts', () => {
  const agent = { agentServiceAccount: 'mooring' };

  it.each<[string, Partial<ReferenceSettings>, string]>([
    ["the agent's own, its namespace unknown", agent, 'mooring'],
    ["the agent's own, in the agent's namespace", { ...agent, agentNamespace: 'apps' }, 'mooring'],
    [
      "the agent's own, even when the allow-list names it",
      { ...agent, serviceAccounts: ['mooring'] },
      'mooring',
    ],
    ['one outside the allow-list', { serviceAccounts: ['shop-runner'] }, 'other'],
    ['any, with an empty allow-list', { serviceAccounts: [] }, 'shop-runner'],
  ])('%s is refused', (_case, references, name) => {
    const err = errorOf(() => render({ service_account_name: name }, references));
    expect(err.code).toBe('MOORING_E_RENDER_POLICY');
    expect(err.field).toBe(`${S}.service_account_name`);
    expect(err.message).toContain(`service_account_name "${name}"`);
  });

  it.each<[string, Partial<ReferenceSettings>, string | undefined]>([
    ['another account', agent, 'shop-runner'],
    ["the agent's name in another namespace", { ...agent, agentNamespace: 'mooring-system' }, 'mooring'],
    ['one on the allow-list', { ...agent, serviceAccounts: ['shop-runner', 'x'] }, 'shop-runner'],
    ['none (the namespace default), with an allow-list', { ...agent, serviceAccounts: [] }, undefined],
  ])('%s is allowed', (_case, references, name) => {
    const { objects } = render(name ? { service_account_name: name } : {}, references);
    const api = objects.find((o) => o.kind === 'Deployment' && o.metadata.name === 'shop-api') as unknown as {
      spec: { template: { spec: { serviceAccountName?: string } } };
    };
    expect(api.spec.template.spec.serviceAccountName).toBe(name);
  });
});

describe('projected service account tokens', () => {
  const token = (at: number): ResourceSpecRecord => ({
    volumes: [
      { name: 'cfg', configMap: { name: 'cm' } },
      {
        name: 'tok',
        projected: {
          sources: [
            { configMap: { name: 'cm' } },
            { serviceAccountToken: { path: 'token', audience: 'vault', expirationSeconds: 600 } },
          ].slice(0, at + 1),
        },
      },
    ],
  });

  it('are refused by default', () => {
    const err = errorOf(() => render(token(1)));
    expect(err.code).toBe('MOORING_E_RENDER_POLICY');
    expect(err.field).toBe(`${S}.volumes[1].projected.sources[1].serviceAccountToken`);
    expect(err.message).toContain('volume "tok"');
  });

  it('are allowed with allowServiceAccountTokens', () => {
    const { objects } = render(token(1), { allowServiceAccountTokens: true });
    expect(JSON.stringify(objects)).toContain('"serviceAccountToken":{"path":"token","audience":"vault"');
  });

  it('a projected volume without one is allowed by default', () => {
    expect(JSON.stringify(render(token(0)).objects)).toContain('"projected":{"sources":[{"configMap"');
  });
});

describe('tenants and namespaces', () => {
  it('a deployment of another tenant than the namespace is bound to is refused', () => {
    const err = errorOf(() => render({}, { namespaceTenants: { apps: OTHER_TENANT } }));
    expect(err.code).toBe('MOORING_E_TENANT_MISMATCH');
    expect(err.field).toBe('tenant_id');
    expect(err.message).toContain(`tenant_id "${TENANT}"`);
    expect(err.message).toContain('namespace "apps"');
  });

  it.each<[string, Record<string, string>]>([
    ['bound to its tenant', { apps: TENANT, other: OTHER_TENANT }],
    ['bound to its tenant, spelt in capitals', { apps: TENANT.toUpperCase() }],
    ['not bound (only others are)', { other: OTHER_TENANT }],
    ['not bound (no binding at all)', {}],
  ])('a deployment into a namespace %s is rendered', (_case, namespaceTenants) => {
    const { namespace, objects } = render({}, { namespaceTenants });
    expect(namespace).toBe('apps');
    expect(objects.length).toBeGreaterThan(0);
  });
});

describe('the check of the rendered pods (a second guard)', () => {
  const own = {
    baseName: 'shop-api',
    namespace: 'apps',
    references: withReferences({ agentServiceAccount: 'mooring' }).references!,
  };
  const workload = (podSpec: Record<string, unknown>): RenderedObject => ({
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: { name: 'shop-api-postgres', namespace: 'apps', labels: {}, annotations: {} },
    spec: { template: { metadata: {}, spec: podSpec } },
  });

  it.each<[string, Record<string, unknown>, string]>([
    [
      'an init container reading another deployment env Secret',
      { initContainers: [{ name: 'i', envFrom: [{ secretRef: { name: 'billing-env' } }] }] },
      'StatefulSet/shop-api-postgres:spec.template.spec.initContainers[0].envFrom[0].secretRef.name',
    ],
    [
      "the agent's account through the deprecated serviceAccount field",
      { containers: [{ name: 'c' }], serviceAccount: 'mooring' },
      'StatefulSet/shop-api-postgres:spec.template.spec.serviceAccount',
    ],
    [
      'a projected token',
      { volumes: [{ name: 't', projected: { sources: [{ serviceAccountToken: { path: 't' } }] } }] },
      'StatefulSet/shop-api-postgres:spec.template.spec.volumes[0].projected.sources[0].serviceAccountToken',
    ],
  ])('refuses %s', (_case, podSpec, field) => {
    const err = errorOf(() => checkRenderedReferences([workload(podSpec)], own));
    expect(err.code).toBe('MOORING_E_RENDER_POLICY');
    expect(err.field).toBe(field);
  });

  it("passes the deployment's own references and objects without a pod template", () => {
    const secret: RenderedObject = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'billing-env', namespace: 'apps', labels: {}, annotations: {} },
    };
    const pod = workload({
      containers: [{ name: 'c', envFrom: [{ secretRef: { name: 'shop-api-env' } }] }],
      serviceAccountName: 'shop-runner',
    });
    expect(() => checkRenderedReferences([secret, pod], own)).not.toThrow();
  });
});
