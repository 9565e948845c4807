/**
 * The create body most tests need: a one-replica `external_docker` deployment of a listener in
 * one namespace. Suites add their secrets or image to it.
 */

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
