/**
 * The Kubernetes client from a kubeconfig (YAML text or a file path) or from the pod's service
 * account (in-cluster). The only place that turns a kubeconfig into a connection.
 */
import { MooringError } from '../errors.ts';
import { KubeHttp, type KubeHttpOptions } from './http.ts';
import { IN_CLUSTER, loadClusterAccess } from './kubeconfig.ts';

export { IN_CLUSTER };

export interface KubeClientOptions extends KubeHttpOptions {
  /** Relative kubeconfig paths resolve from here. */
  cwd?: string;
}

/**
 * Builds the client. `source` is kubeconfig YAML (it contains a newline or `apiVersion:`), a path
 * to a kubeconfig file, or `in-cluster` / undefined for the service account. Throws
 * MOORING_E_CONFIG_INVALID with the reason when it cannot be used.
 */
export function createKubeClient(source: string | undefined, opts: KubeClientOptions = {}): KubeHttp {
  try {
    return new KubeHttp(loadClusterAccess(source, opts.env ?? {}, opts.cwd), opts);
  } catch (err) {
    if (err instanceof MooringError) throw err;
    throw new MooringError(
      'MOORING_E_CONFIG_INVALID',
      `kubeconfig could not be loaded: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`,
    );
  }
}
