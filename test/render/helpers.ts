import { expect } from 'vitest';
import type { ResourceSpecRecord } from '../../src/contract/index.ts';
import { RenderError, type RenderPolicy, renderDeployment } from '../../src/render/index.ts';
import { deployment, settings } from './fixtures.ts';

/** The default policy with `overrides`. */
export function policyWith(overrides: Partial<RenderPolicy> = {}): RenderPolicy {
  return { ...settings().policy, ...overrides };
}

/** Renders the default test deployment with `spec` under the default policy with `policy` over it. */
export function renderSpec(spec: ResourceSpecRecord, policy: Partial<RenderPolicy> = {}) {
  return renderDeployment({
    deployment: deployment({ spec }),
    settings: settings({ policy: policyWith(policy) }),
  });
}

/** The RenderError `fn` throws; fails the test when it throws something else or nothing. */
export function errorOf(fn: () => unknown): RenderError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(RenderError);
    return err as RenderError;
  }
  throw new Error('expected a RenderError, got a result');
}

/** The parts of rendered workloads, HPAs and PDBs these tests read. */
export interface Workload {
  metadata: { name: string };
  spec: {
    replicas?: number;
    selector: { matchLabels: Record<string, string> };
    template: {
      metadata: { labels: Record<string, string> };
      spec: {
        securityContext?: unknown;
        containers: {
          name: string;
          securityContext?: unknown;
          resources: { requests: { cpu: string } };
          args?: string[];
        }[];
      };
    };
    volumeClaimTemplates: { spec: { resources: { requests: { storage: string } } } }[];
    minReplicas?: number;
    maxReplicas?: number;
    minAvailable?: number;
  };
}
/** The object of `kind` named `name`, read as a Workload. */
export function byName(
  objects: { kind: string; metadata: { name: string } }[],
  kind: string,
  name: string,
): Workload {
  return objects.find((o) => o.kind === kind && o.metadata.name === name) as unknown as Workload;
}
