import { describe, expect, it } from 'vitest';
import { kubeVerb } from '../../src/kube/verb.ts';

describe('kubeVerb', () => {
  it.each([
    ['GET', '/api/v1/namespaces/default', undefined, 'get'],
    ['GET', '/api/v1/namespaces/a/secrets', undefined, 'list'],
    ['GET', '/api/v1/namespaces/a/secrets/s1', undefined, 'get'],
    ['GET', '/apis/apps/v1/namespaces/a/deployments?watch=true', undefined, 'watch'],
    ['GET', '/apis/apps/v1/deployments?labelSelector=x', undefined, 'list'],
    ['POST', '/apis/coordination.k8s.io/v1/namespaces/a/leases', undefined, 'create'],
    ['PUT', '/apis/coordination.k8s.io/v1/namespaces/a/leases/l', undefined, 'update'],
    ['PATCH', '/apis/apps/v1/namespaces/a/deployments/d', 'application/apply-patch+yaml', 'apply'],
    ['PATCH', '/apis/apps/v1/namespaces/a/deployments/d', 'application/merge-patch+json', 'patch'],
    ['DELETE', '/api/v1/namespaces/a/services/s', undefined, 'delete'],
  ])('%s %s -> %s', (method, path, contentType, verb) => {
    expect(kubeVerb(method, path, contentType)).toBe(verb);
  });
});
