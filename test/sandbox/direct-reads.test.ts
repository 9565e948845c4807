/**
 * The direct store reads tests and the benchmark use (no HTTP): `hasObject` answers existence
 * without copying; `getObject` answers a copy, so a caller can never change what the API serves.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APPLY, deployment, eventually, type Sandbox, startSandbox } from './helpers.ts';

describe('direct store reads', () => {
  let sb: Sandbox;
  beforeAll(async () => {
    sb = await startSandbox();
  });
  afterAll(async () => {
    await sb.close();
  });

  it('hasObject: true once an object is stored, false for a missing name, kind or namespace', async () => {
    expect(sb.api.hasObject('apps/v1', 'Deployment', 'default', 'r1')).toBe(false);
    const res = await sb.call(
      'PATCH',
      '/apis/apps/v1/namespaces/default/deployments/r1?fieldManager=t',
      deployment('r1'),
      APPLY,
    );
    expect(res.status).toBe(201);
    expect(sb.api.hasObject('apps/v1', 'Deployment', 'default', 'r1')).toBe(true);
    expect(sb.api.hasObject('apps/v1', 'Deployment', 'kube-system', 'r1')).toBe(false);
    expect(sb.api.hasObject('apps/v1', 'StatefulSet', 'default', 'r1')).toBe(false);
    expect(sb.api.hasObject('example.com/v1', 'Widget', 'default', 'r1')).toBe(false);
    expect(sb.api.hasObject('v1', 'Namespace', undefined, 'default')).toBe(true);
  });

  it('getObject answers a copy: changing it changes nothing the API serves', async () => {
    await sb.call(
      'PATCH',
      '/apis/apps/v1/namespaces/default/deployments/r2?fieldManager=t',
      deployment('r2'),
      APPLY,
    );
    // After the simulated controller's status write, which shares the spec with the applied object.
    const copy = await eventually(() => {
      const o = sb.api.getObject('apps/v1', 'Deployment', 'default', 'r2');
      return o?.status ? o : undefined;
    });
    const spec = copy?.spec as { replicas?: number; template: { spec: { containers: { image: string }[] } } };
    const image = spec.template.spec.containers[0]?.image;
    spec.replicas = 42;
    (spec.template.spec.containers[0] as { image: string }).image = 'changed:1';
    const served = await sb.call('GET', '/apis/apps/v1/namespaces/default/deployments/r2');
    const live = served.body.spec as typeof spec;
    expect(live.replicas).not.toBe(42);
    expect(live.template.spec.containers[0]?.image).toBe(image);
  });
});
