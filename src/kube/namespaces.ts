/**
 * Namespace reads for the agent's start-up check: does each namespace it was given exist.
 */
import { MooringError } from '../errors.ts';
import { kubeError } from './errors.ts';
import type { KubeHttp } from './http.ts';
import { resourcePath } from './object-client.ts';

/**
 * A namespace reader over the Kubernetes API (GET /api/v1/namespaces/{name}): resolves when the
 * namespace exists, throws a coded MooringError (MOORING_E_KUBE_NOT_FOUND when absent). A read that takes
 * longer than `timeoutMs` counts as the API being unreachable (retried), so start-up never hangs.
 */
export function kubeNamespaceReader(kube: KubeHttp, timeoutMs = 10_000): (name: string) => Promise<void> {
  return async (name) => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () =>
          reject(
            new MooringError(
              'MOORING_E_KUBE_UNREACHABLE',
              `Namespace/${name}: get timed out after ${timeoutMs} ms`,
            ),
          ),
        timeoutMs,
      );
    });
    try {
      await Promise.race([
        kube.request({ method: 'GET', path: resourcePath('v1', 'Namespace', undefined, name) }),
        timeout,
      ]);
    } catch (err) {
      if (err instanceof MooringError) throw err;
      throw kubeError(err, `Namespace/${name}`, 'get');
    } finally {
      clearTimeout(timer);
    }
  };
}
