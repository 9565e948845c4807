/**
 * The create body most tests need: a one-replica `external_docker` deployment of a listener in
 * one namespace. Suites add their secrets or image to it.
 */
import type { ResourceSpecRecord } from '../../src/contract/index.ts';
import type { ControlPlaneClient } from '../../src/control-plane/client.ts';

/** A one-replica `external_docker` deployment `name` of `listenerId` in `namespace`. */
export function smallDeployment(name: string, listenerId: string, namespace: string) {
  return {
    name,
    source: 'external_docker' as const,
    source_config: {
      listener_id: listenerId,
      listener_config: { k8s_namespace: namespace },
      resource_spec: { min_scale: 1, max_scale: 1, cpu: 0.25, memory_mb: 128 },
    },
    source_revision_config: { image_uri: `registry.example/${name}:1.0.0` },
  };
}

/** What `createSmallDeployment` sends beyond `smallDeployment`. */
export interface SmallDeploymentExtras {
  /** Merged over the small deployment's resources. */
  spec?: ResourceSpecRecord;
  secrets?: { name: string; value: string }[];
}

/** Creates a `smallDeployment` with `extras` through `client`; resolves with its id. */
export async function createSmallDeployment(
  client: Pick<ControlPlaneClient, 'createDeployment'>,
  deployment: { name: string; listenerId: string; namespace: string },
  extras: SmallDeploymentExtras = {},
): Promise<string> {
  const body = smallDeployment(deployment.name, deployment.listenerId, deployment.namespace);
  const created = await client.createDeployment({
    ...body,
    source_config: {
      ...body.source_config,
      resource_spec: { ...body.source_config.resource_spec, ...extras.spec },
    },
    secrets: extras.secrets ?? [],
  });
  return created.id;
}
