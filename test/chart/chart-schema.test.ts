import { describe, expect, it } from 'vitest';
import { lint, templateRaw } from './helm.ts';

/** A complete, valid value set; each case below breaks one thing in it. */
function valid(): Record<string, unknown> {
  return {
    controlPlane: { url: 'https://control-plane.example.com' },
    listenerId: '7c9e6679-7425-40de-944b-e07fc1f90ae7',
    namespaces: ['apps'],
    existingSecret: 'mooring-api-key',
  };
}

function without(values: Record<string, unknown>, key: string): Record<string, unknown> {
  const copy = structuredClone(values);
  delete copy[key];
  return copy;
}

interface BadCase {
  name: string;
  values: Record<string, unknown>;
  /** Fragments the error must contain: where the problem is and what it is. */
  message: RegExp[];
}

const BAD: BadCase[] = [
  {
    name: 'a namespace that is not a DNS-1123 label',
    values: { ...valid(), namespaces: ['apps', 'Team_B'] },
    message: [/at '\/namespaces\/1'/, /'Team_B' does not match pattern/],
  },
  {
    name: 'a missing controlPlane.url',
    values: { ...valid(), controlPlane: {} },
    message: [/at '\/controlPlane'/, /missing property 'url'/],
  },
  {
    name: 'pollIntervalSeconds below 1',
    values: { ...valid(), pollIntervalSeconds: 0 },
    message: [/at '\/pollIntervalSeconds'/, /minimum: got 0, want 1/],
  },
  {
    name: 'neither apiKey nor existingSecret',
    values: without(valid(), 'existingSecret'),
    message: [/set apiKey or existingSecret/],
  },
  {
    name: 'a misspelt key (additionalProperties: false)',
    values: { ...valid(), pollInterval: 30 },
    message: [/additional properties? 'pollInterval' not allowed/],
  },
  {
    name: 'a listenerId that is not a uuid',
    values: { ...valid(), listenerId: 'listener-1' },
    message: [/at '\/listenerId'/, /'listener-1' does not match pattern/],
  },
  {
    name: 'no namespaces at all',
    values: { ...valid(), namespaces: [] },
    message: [/at '\/namespaces'/, /minItems: got 0, want 1/],
  },
  {
    name: 'both apiKey and existingSecret',
    values: { ...valid(), apiKey: 'k' },
    message: [/set only one of apiKey and existingSecret/],
  },
  {
    name: 'the API key as a plain env value',
    values: { ...valid(), extraEnv: [{ name: 'MOORING_API_KEY', value: 'k' }] },
    message: [/extraEnv must not set MOORING_API_KEY/],
  },
  {
    name: 'a control plane URL without a scheme',
    values: { ...valid(), controlPlane: { url: 'control-plane.example.com' } },
    message: [/at '\/controlPlane\/url'/, /does not match pattern/],
  },
  {
    name: 'a tenant binding whose tenant is not a uuid',
    values: { ...valid(), references: { namespaceTenants: { apps: 'team-a' } } },
    message: [/at '\/references\/namespaceTenants\/apps'/, /'team-a' does not match pattern/],
  },
  {
    name: 'a tenant binding of a namespace the agent does not write',
    values: {
      ...valid(),
      references: { namespaceTenants: { other: '3f2b6c1e-8d4a-4f7e-9b2c-5a6d7e8f9a0b' } },
    },
    message: [/references.namespaceTenants binds other, which is not one of namespaces/],
  },
  {
    name: 'a ServiceAccount name that is not a DNS-1123 subdomain',
    values: { ...valid(), references: { serviceAccounts: ['Runner'] } },
    message: [/at '\/references\/serviceAccounts\/0'/, /'Runner' does not match pattern/],
  },
  {
    name: 'an unknown log level',
    values: { ...valid(), logLevel: 'verbose' },
    message: [/at '\/logLevel'/, /value must be one of/],
  },
];

describe('values.schema.json and the template checks reject bad values with a clear message', () => {
  it('accepts the valid base these cases start from', () => {
    const res = templateRaw([valid()]);
    expect(res.stderr).toBe('');
    expect(res.status).toBe(0);
  });

  it.each(BAD)('rejects $name', ({ values, message }) => {
    const res = templateRaw([values]);
    expect(res.status).not.toBe(0);
    expect(res.stdout).toBe('');
    for (const fragment of message) expect(res.stderr).toMatch(fragment);
  });

  it('helm lint --strict fails too, with the same message', () => {
    const res = lint([{ ...valid(), namespaces: ['Bad_NS'] }]);
    expect(res.status).not.toBe(0);
    expect(res.stdout + res.stderr).toMatch(/'Bad_NS' does not match pattern/);
  });
});
