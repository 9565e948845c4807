/**
 * The sandbox Kubernetes API server: HTTPS with a CA made at start, the resource verbs with real
 * semantics, discovery and openapi for kubectl, watches, a simulated workload controller, and the
 * request log and fault injection tests use. Library entry point: `startKubeApi`.
 */
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { Socket } from 'node:net';
import type { Logger } from '../log.ts';
import { protoSchema } from './proto-schema.ts';
import { Cluster } from './cluster.ts';
import { WorkloadController } from './controller.ts';
import { type FaultRule, Faults } from './faults.ts';
import { clone } from './equal.ts';
import { createHandler } from './handler.ts';
import { renderKubeconfig } from './kubeconfig.ts';
import { findByKind } from './resources.ts';
import { RequestLog, type RequestRecord } from './request-log.ts';
import { createServingCertificate } from './tls.ts';
import type { KubeObject, StoredObject } from './types.ts';
import { parseWriteOptions, type WriteOptions } from './write-options.ts';
import { KUBERNETES_SERVICE_IP } from './cluster-ips.ts';
import { create } from './writes.ts';

export type { FaultRule } from './faults.ts';
export type { RequestRecord } from './request-log.ts';
export type { KubeObject } from './types.ts';

export interface KubeApiOptions {
  host?: string /* 127.0.0.1 */;
  port?: number /* 0 = random */;
  kubeconfigOut?: string;
  namespaces?: string[] /* created at start; 'default' always exists */;
  rolloutDelayMs?: number /* simulated controller: time until a Deployment/StatefulSet is Available; default 0 */;
  logger?: Logger;
  /** Watch events kept per resource type for resumption; older resourceVersions get 410 Gone (default 1000). */
  watchHistory?: number;
  /** How often watches that allow bookmarks get a BOOKMARK event (default 5000 ms). */
  watchBookmarkIntervalMs?: number;
  /** Requests `requests()` returns at most, the newest (default 100,000). */
  requestLogCapacity?: number;
  /** CustomResourceDefinitions to serve as installed, e.g. `HTTPROUTE_CRD` (default none). */
  crds?: string[];
}

export interface KubeApi {
  url: string; // https://127.0.0.1:PORT
  kubeconfig: string; // YAML with the CA data, a user with a token
  kubeconfigPath?: string;
  caPem: string;
  requests(filter?: Partial<RequestRecord>): RequestRecord[];
  clearRequests(): void;
  setFaults(rules: FaultRule[]): void;
  clearFaults(): void;
  failRollout(namespace: string, name: string, kind?: 'Deployment' | 'StatefulSet'): void; // next rollout ends ProgressDeadlineExceeded
  getObject(
    apiVersion: string,
    kind: string,
    namespace: string | undefined,
    name: string,
  ): KubeObject | undefined; // direct store read (tests)
  /** Whether the object exists: a direct store read that copies nothing (convergence polling). */
  hasObject(apiVersion: string, kind: string, namespace: string | undefined, name: string): boolean;
  /**
   * Calls `listener` with a copy of every stored change of one kind, as it is stored (tests follow
   * the Leases' terms and the objects' owners with it, exactly, where polling could miss a change).
   * Returns the unsubscribe.
   */
  onChange(apiVersion: string, kind: string, listener: (change: ObjectChange) => void): () => void;
  close(): Promise<void>;
}

/** One stored change as `onChange` reports it. */
export interface ObjectChange {
  type: 'ADDED' | 'MODIFIED' | 'DELETED';
  object: StoredObject;
  /** When it was stored (ms since the epoch). */
  at: number;
}

function stored(
  cluster: Cluster,
  apiVersion: string,
  kind: string,
  namespace: string | undefined,
  name: string,
): KubeObject | undefined {
  const type = findByKind(apiVersion, kind);
  if (!type) return undefined;
  return cluster.store.get(type, type.namespaced ? (namespace ?? '') : '', name);
}

const SYSTEM_NAMESPACES = ['default', 'kube-system', 'kube-public', 'kube-node-lease'];

/**
 * The `kubernetes` Service in `default` that kube-apiserver keeps for itself: the first address of
 * the service range, port 443 to the server's own port, no selector (its endpoints are the servers).
 */
function createKubernetesService(cluster: Cluster, port: number, setup: WriteOptions): void {
  const type = cluster.typeFor('v1', 'Service');
  create(
    cluster,
    type,
    'default',
    {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: {
        name: 'kubernetes',
        namespace: 'default',
        labels: { component: 'apiserver', provider: 'kubernetes' },
      },
      spec: {
        type: 'ClusterIP',
        clusterIP: KUBERNETES_SERVICE_IP,
        ports: [{ name: 'https', port: 443, protocol: 'TCP', targetPort: port }],
      },
    },
    setup,
  );
}

/** Starts the sandbox API; resolves once it listens. Close it with `close()`. */
export async function startKubeApi(options: KubeApiOptions = {}): Promise<KubeApi> {
  const host = options.host ?? '127.0.0.1';
  // The protobuf definitions load now, so a damaged vendored file fails the start, not a request.
  protoSchema();
  const cert = await createServingCertificate([host]);
  const cluster = new Cluster({
    historyPerType: options.watchHistory ?? 1000,
    crds: options.crds ?? [],
    caPem: cert.caPem,
  });
  const controller = new WorkloadController(cluster, { rolloutDelayMs: options.rolloutDelayMs ?? 0 });
  const log = new RequestLog(options.requestLogCapacity ? { capacity: options.requestLogCapacity } : {});
  const faults = new Faults();
  const namespaceType = cluster.namespaceType();
  const setup = parseWriteOptions(new URLSearchParams(), 'kube-apiserver');
  for (const name of [...new Set([...SYSTEM_NAMESPACES, ...(options.namespaces ?? [])])]) {
    create(
      cluster,
      namespaceType,
      undefined,
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name } },
      setup,
    );
  }
  let address = `${host}:0`;
  const handler = createHandler({
    cluster,
    log,
    faults,
    serverAddress: () => address,
    bookmarkIntervalMs: options.watchBookmarkIntervalMs ?? 5_000,
    onInternalError: (error) => options.logger?.error({ err: error }, 'sandbox kube-api: internal error'),
  });
  const server = createServer({ key: cert.keyPem, cert: cert.certPem, keepAliveTimeout: 60_000 }, handler);
  const sockets = new Set<Socket>();
  // Every connection from its first byte: one still in its TLS handshake when the server closes
  // (a client's connection opened for a request it then dropped) held `close` for a minute.
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  address = `${host.includes(':') ? `[${host}]` : host}:${port}`;
  const url = `https://${address}`;
  createKubernetesService(cluster, port, setup);
  const kubeconfig = renderKubeconfig(url, cert.caPem);
  if (options.kubeconfigOut) writeFileSync(options.kubeconfigOut, kubeconfig, { mode: 0o600 });
  options.logger?.info({ url }, 'sandbox kube-api listening');

  return {
    url,
    kubeconfig,
    ...(options.kubeconfigOut ? { kubeconfigPath: options.kubeconfigOut } : {}),
    caPem: cert.caPem,
    requests: (filter) => log.find(filter),
    clearRequests: () => log.clear(),
    setFaults: (rules) => faults.set(rules),
    clearFaults: () => faults.clear(),
    failRollout: (namespace, name, kind) => controller.failRollout(namespace, name, kind),
    getObject: (apiVersion, kind, namespace, name) => {
      const obj = stored(cluster, apiVersion, kind, namespace, name);
      return obj ? clone(obj) : undefined;
    },
    hasObject: (apiVersion, kind, namespace, name) =>
      stored(cluster, apiVersion, kind, namespace, name) !== undefined,
    onChange: (apiVersion, kind, listener) => {
      const type = findByKind(apiVersion, kind);
      if (!type) throw new Error(`the sandbox does not serve ${apiVersion} ${kind}`);
      return cluster.store.subscribe(type, (event) =>
        listener({ type: event.type, object: clone(event.object), at: Date.now() }),
      );
    },
    close: async () => {
      controller.close();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const socket of sockets) socket.destroy();
      server.closeAllConnections?.();
      await closed;
    },
  };
}
