/** The watches of the owned kinds for `mooring run` (ADR 0014), unless `--watch=false`. */
import type { AgentConfig } from '../config.ts';
import { safeErr } from '../agent/safe-error.ts';
import type { KubeHttp } from '../kube/http.ts';
import type { Keeps } from '../kube/shard-entries.ts';
import { kubeNamespaceReader } from '../kube/namespaces.ts';
import { ObjectClient } from '../kube/object-client.ts';
import { WatchCache } from '../kube/watch-cache.ts';
import type { Logger } from '../log.ts';

/**
 * A watch cache of what `config`'s listener owns (of the deployments `keeps` keeps, when
 * sharded); undefined with watches off.
 */
export function watchedObjects(
  config: Pick<AgentConfig, 'watch' | 'namespaces' | 'listenerId'>,
  kube: KubeHttp,
  logger: Logger,
  keeps?: Keeps,
): WatchCache | undefined {
  if (!config.watch) return undefined;
  const readNamespace = kubeNamespaceReader(kube);
  return new WatchCache({
    client: new ObjectClient(kube),
    namespaces: config.namespaces,
    listenerId: config.listenerId,
    ...(keeps ? { keeps } : {}),
    // A watch that ended is listed again after a backoff; the cycles list meanwhile.
    probe: () => readNamespace(config.namespaces[0] ?? 'default'),
    onFailure: (kind, namespace, err) =>
      logger.debug({ kind: kind.kind, namespace, err: safeErr(err) }, 'watch ended; listing again'),
  });
}
