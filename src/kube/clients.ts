/**
 * Kubernetes clients from a kubeconfig (YAML text or a file path) or from the pod's service
 * account (in-cluster). The only place that builds a KubeConfig.
 */
import { existsSync } from 'node:fs';
import { KubeConfig, KubernetesObjectApi, type RequestContext } from '@kubernetes/client-node';
import { MooringError } from '../errors.ts';

/**
 * A KubeConfig whose requests share one connection pool. client-node 2.x builds a new undici Agent
 * for every request it authenticates, so each request opened (and left open) its own TLS
 * connection: a handshake per request on both sides, and idle sockets piling up until their
 * keep-alive ran out. We keep the first dispatcher it builds and hand that one to every request.
 * The agent talks to one cluster as one user; credentials sent as headers (bearer tokens, rotated
 * by the kubelet) are still applied per request.
 */
export class PooledKubeConfig extends KubeConfig {
  // client-node ships its own undici: take the dispatcher type from its RequestContext.
  #dispatcher: ReturnType<RequestContext['getDispatcher']>;

  override async applySecurityAuthentication(context: RequestContext): Promise<void> {
    await super.applySecurityAuthentication(context);
    const built = context.getDispatcher();
    if (!built) return;
    if (!this.#dispatcher) {
      this.#dispatcher = built;
      return;
    }
    if (built !== this.#dispatcher) {
      context.setDispatcher(this.#dispatcher);
      void built.close().catch(() => {});
    }
  }
}

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
  const kc = new PooledKubeConfig();
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
