/** The demo's seed when examples/seed.yaml is not there (an npm install): made through the client. */
import type { ControlPlaneClient } from '../control-plane/client.ts';

/** A listener and one external_docker deployment, for when the seed file is missing. */
export async function seedThroughClient(client: ControlPlaneClient): Promise<string> {
  const listener = await client.createListener({
    compute_type: 'k8s',
    compute_id: 'sandbox-cluster',
    compute_config: { k8s_namespaces: ['default'] },
    version: '0.0.0',
  });
  await client.createDeployment({
    name: 'hello-app',
    source: 'external_docker',
    source_config: {
      deployment_type: 'dev',
      listener_id: listener.id,
      listener_config: { k8s_namespace: 'default' },
      custom_url: 'https://hello.example.com/',
      resource_spec: { min_scale: 1, max_scale: 2, cpu: 0.25, memory_mb: 256 },
    },
    source_revision_config: { image_uri: 'ghcr.io/example/app:1.0.0' },
    secrets: [{ name: 'APP_GREETING', value: 'hello-from-the-sandbox' }],
  });
  return listener.id;
}
