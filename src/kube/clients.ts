/**
 * Kubernetes clients from a kubeconfig (YAML text or a file path) or from the pod's service
 * account (in-cluster). The only place that builds a KubeConfig.
 */
import { existsSync } from 'node:fs';
import { KubeConfig, KubernetesObjectApi } from '@kubernetes/client-node';
import { MooringError } from '../errors.ts';

export interface KubeClients {
  kc: KubeConfig;
  objects: KubernetesObjectApi;
}

/** Marker for "use the pod's service account token and CA". */
export const IN_CLUSTER = 'in-cluster';

/**
 * Builds the clients. `source` is kubeconfig YAML (it contains a newline or `apiVersion:`), a
 * path to a kubeconfig file, or `in-cluster` / undefined for the service account.
 */
export function createKubeClients(source?: string): KubeClients {
  const kc = new KubeConfig();
  try {
    if (source === undefined || source === IN_CLUSTER) {
      kc.loadFromCluster();
    } else if (source.includes('\n') || /^\s*apiVersion\s*:/.test(source)) {
      kc.loadFromString(source);
    } else if (existsSync(source)) {
      kc.loadFromFile(source);
    } else {
      throw new Error(`kubeconfig file not found: ${source}`);
    }
  } catch (err) {
    throw new MooringError(
      'MOORING_E_CONFIG_INVALID',
      `kubeconfig could not be loaded: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`,
    );
  }
  if (!kc.getCurrentCluster()) {
    throw new MooringError('MOORING_E_CONFIG_INVALID', 'kubeconfig has no current cluster');
  }
  return { kc, objects: KubernetesObjectApi.makeApiClient(kc) };
}
