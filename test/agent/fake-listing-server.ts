/**
 * A control plane that serves only what a poll reads: `/v2/deployments` pages of the records
 * given (limit and offset honoured, in the order given, with `X-Total-Count`) and revisions by id.
 * A page can be held back until the test lets it go (`hold`), or answered with an error.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { DeploymentRecord, RevisionRecord } from '../../src/contract/index.ts';

export interface FakeListingServer {
  url: string;
  /** The records listed, in order; change them between polls. */
  records: DeploymentRecord[];
  revisions: Map<string, RevisionRecord>;
  /** Page requests answered, by offset. */
  pagesServed: number[];
  /** Holds the page at `offset` back until the returned function is called. */
  hold(offset: number): () => void;
  /** Answers the page at `offset` with this HTTP status (once). */
  failOnce(offset: number, status: number): void;
  close(): Promise<void>;
}

export async function fakeListingServer(records: DeploymentRecord[]): Promise<FakeListingServer> {
  const holds = new Map<number, Promise<void>>();
  const failures = new Map<number, number>();
  const state: Omit<FakeListingServer, 'url' | 'close' | 'hold' | 'failOnce'> = {
    records,
    revisions: new Map(),
    pagesServed: [],
  };
  const server: Server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', 'http://x');
      const revision = url.pathname.match(/^\/v2\/deployments\/[^/]+\/revisions\/([^/]+)$/);
      if (revision) {
        const r = state.revisions.get(decodeURIComponent(revision[1]!));
        res.writeHead(r ? 200 : 404, { 'content-type': 'application/json' });
        res.end(JSON.stringify(r ?? { detail: 'no such revision' }));
        return;
      }
      const limit = Number(url.searchParams.get('limit') ?? 20);
      const offset = Number(url.searchParams.get('offset') ?? 0);
      await holds.get(offset);
      const status = failures.get(offset);
      if (status !== undefined) {
        failures.delete(offset);
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ detail: 'failed on purpose' }));
        return;
      }
      state.pagesServed.push(offset);
      const resources = state.records.slice(offset, offset + limit);
      res.writeHead(200, {
        'content-type': 'application/json',
        'x-total-count': String(state.records.length),
      });
      res.end(JSON.stringify({ resources, offset: offset + resources.length }));
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(state, {
    url: `http://127.0.0.1:${port}`,
    hold(offset: number) {
      let release!: () => void;
      holds.set(
        offset,
        new Promise<void>((resolve) => {
          release = resolve;
        }),
      );
      return () => {
        holds.delete(offset);
        release();
      };
    },
    failOnce(offset: number, status: number) {
      failures.set(offset, status);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
}

const T = '2026-01-01T00:00:00Z';

/** Deployment `i` of `listenerId` (named `app-<i>`), running revision `rev-<i>`. */
export function listedDeployment(listenerId: string, i: number): DeploymentRecord {
  return {
    id: `dep-${String(i).padStart(4, '0')}`,
    name: `app-${i}`,
    source: 'external_docker',
    source_config: { listener_id: listenerId, listener_config: { k8s_namespace: 'apps' } },
    source_revision_config: { image_uri: `img:${i}` },
    secrets: [],
    tenant_id: 't-1',
    created_at: T,
    updated_at: T,
    status: 'READY',
    latest_revision_id: `rev-${i}`,
    active_revision_id: `rev-${i}`,
  } as unknown as DeploymentRecord;
}

/** The final revision a `listedDeployment` runs (`rev-<i>`, or `rev-<i>-<n>` for a later one). */
export function listedRevision(id: string): RevisionRecord {
  return {
    id,
    created_at: T,
    updated_at: T,
    status: 'DEPLOYED',
    source: 'external_docker',
    source_revision_config: { image_uri: `img:${id}` },
  } as unknown as RevisionRecord;
}
