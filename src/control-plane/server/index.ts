import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Logger, silentLogger } from '../../log.ts';
import { createApp, type RequestStats } from './app.ts';
import { BuildSimulator } from './build-simulator.ts';
import { ControlStore } from './control-store.ts';
import { DEFAULT_DELETED_RETENTION_SECONDS, DeletedRetention } from './deleted-retention.ts';
import { loadSeed, readSeed, type SeedResult } from './seed.ts';

export { ControlStore, DEFAULT_TENANT_ID } from './control-store.ts';
export { type SeedInput, type SeedResult, loadSeed, readSeed } from './seed.ts';
export type { RequestStats } from './app.ts';
export { DEFAULT_DELETED_RETENTION_SECONDS } from './deleted-retention.ts';

export interface ControlPlaneOptions {
  /** Interface to listen on; default 127.0.0.1. */
  host?: string;
  /** Port; 0 (default) picks a free one. */
  port?: number;
  /** `:memory:` (default) or a SQLite file path. */
  db?: string;
  /** The key callers must send as `X-Api-Key`. */
  apiKey: string;
  /** A seed object, or the path of a YAML/JSON seed file. */
  seed?: string | object;
  logger?: Logger;
  /** Clock for timestamps (tests). */
  now?: () => Date;
  /** Request bodies above this get 413; default 1 MiB. */
  maxBodyBytes?: number;
  /**
   * Simulated builds (`--simulate-builds`): seconds from a revision's creation to `DEPLOYED`.
   * Off (undefined) by default: revisions of build sources then stay `QUEUED`.
   */
  simulateBuildsSeconds?: number;
  /** Share of simulated builds that fail (`--build-failure-rate`), 0 to 1; default 0. */
  buildFailureRate?: number;
  /** Random source for simulated failures (tests). */
  random?: () => number;
  /** Seconds a deleted deployment stays listed as AWAITING_DELETE before it is purged; default 3600. */
  deletedRetentionSeconds?: number;
}

export interface ControlPlaneServer {
  /** Base URL, e.g. `http://127.0.0.1:41234`. */
  readonly url: string;
  readonly port: number;
  readonly store: ControlStore;
  /** What the seed added (zeros without a seed). */
  readonly seeded: SeedResult;
  stats(): RequestStats;
  resetStats(): void;
  /** Stops listening and drops open connections; keeps the data and the port. */
  stop(): Promise<void>;
  /** Listens again on the same port after `stop()`. */
  start(): Promise<void>;
  /** Stops and closes the database. */
  close(): Promise<void>;
}

/** The work done before each request: purge what is due, then move simulated builds on. */
function makeUpkeep(store: ControlStore, options: ControlPlaneOptions, now: () => Date): () => void {
  const retention = new DeletedRetention(
    store,
    options.deletedRetentionSeconds ?? DEFAULT_DELETED_RETENTION_SECONDS,
    now,
  );
  const builds =
    options.simulateBuildsSeconds === undefined
      ? undefined
      : new BuildSimulator(store, {
          durationMs: options.simulateBuildsSeconds * 1000,
          now,
          ...(options.buildFailureRate !== undefined ? { failureRate: options.buildFailureRate } : {}),
          ...(options.random ? { random: options.random } : {}),
        });
  return () => {
    retention.sweep();
    builds?.advance();
  };
}

/** Starts the reference control plane (see docs/control-plane.md). */
export async function startControlPlane(options: ControlPlaneOptions): Promise<ControlPlaneServer> {
  const logger = options.logger ?? silentLogger();
  const store = new ControlStore({
    db: options.db ?? ':memory:',
    ...(options.now ? { now: options.now } : {}),
  });
  let seeded: SeedResult = { listeners: 0, deployments: 0, tokens: 0, connections: 0, integrations: 0 };
  try {
    if (options.seed !== undefined) seeded = loadSeed(store, await readSeed(options.seed));
  } catch (err) {
    store.close();
    throw err;
  }
  const now = options.now ?? (() => new Date());
  let upkeep: () => void;
  try {
    upkeep = makeUpkeep(store, options, now);
  } catch (err) {
    store.close();
    throw err;
  }
  const app = createApp({
    store,
    apiKey: options.apiKey,
    logger,
    beforeRequest: upkeep,
    ...(options.maxBodyBytes ? { maxBodyBytes: options.maxBodyBytes } : {}),
  });
  const server: Server = createServer({ keepAliveTimeout: 5_000 }, (req, res) => {
    void app.handle(req, res);
  });
  const host = options.host ?? '127.0.0.1';
  let port = options.port ?? 0;
  let listening = false;

  const listen = () =>
    new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => {
        server.off('error', reject);
        port = (server.address() as AddressInfo).port;
        listening = true;
        resolve();
      });
    });
  const stop = () =>
    new Promise<void>((resolve) => {
      if (!listening) return resolve();
      listening = false;
      server.close(() => resolve());
      server.closeAllConnections();
    });

  try {
    await listen();
  } catch (err) {
    store.close();
    throw err;
  }
  const urlHost = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${urlHost}:${port}`,
    port,
    store,
    seeded,
    stats: app.stats,
    resetStats: app.resetStats,
    stop,
    start: async () => {
      if (!listening) await listen();
    },
    close: async () => {
      await stop();
      store.close();
    },
  };
}
