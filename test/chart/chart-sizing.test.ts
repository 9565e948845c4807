import { describe, expect, it } from 'vitest';
import { heapNeeded, memoryLimitFor } from '../../src/agent/memory-estimate.ts';
import { ciValueSets, only, template } from './helm.ts';

const defaults = ciValueSets().get('default') as string;

function agentResources(values: Record<string, unknown>) {
  const deployment = only(template([defaults, values]), 'Deployment');
  const spec = deployment.spec as {
    template: {
      spec: {
        containers: { resources: { limits: Record<string, string>; requests: Record<string, string> } }[];
      };
    };
  };
  return spec.template.spec.containers[0]!.resources;
}

describe('chart: sizing.expectedDeployments', () => {
  it("sizes the memory limit and request as the agent's memory budget asks for that many deployments", () => {
    for (const n of [1000, 5000, 10_000, 20_000]) {
      const needed = memoryLimitFor(heapNeeded(n, 12 * n)) / (1024 * 1024);
      const resources = agentResources({ sizing: { expectedDeployments: n } });
      expect(resources.limits.memory).toBe(`${Math.max(256, needed)}Mi`);
      expect(resources.requests.memory).toBe(resources.limits.memory);
      expect(resources.limits.cpu).toBe('500m');
    }
  });

  it('leaves the resources as given when unset', () => {
    const resources = agentResources({});
    expect(resources.limits.memory).toBe('256Mi');
    expect(resources.requests.memory).toBe('64Mi');
  });
});
