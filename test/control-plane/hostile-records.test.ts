/**
 * A hostile (or broken) control plane sends the agent records nested thousands of levels deep in
 * the free-form members of a ResourceSpec (`valueFrom`, `securityContext`) or in a revision. The
 * reference control plane refuses such bodies now (MAX_BODY_DEPTH), so a raw HTTP server answers
 * here, as text (JSON.stringify cannot write them). Through the real client and poller, each such
 * record is refused alone with MOORING_E_RECORD_INVALID; the rest of the page is rendered and
 * hashed as usual; nothing throws, and a poll takes no longer than usual.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_RECORD_DEPTH, Poller } from '../../src/agent/poller.ts';
import { ControlPlaneClient } from '../../src/control-plane/client.ts';
import { prepareForApply } from '../../src/kube/desired-hash.ts';
import type { KubeObject } from '../../src/objects/kube-object.ts';
import { silentLogger } from '../../src/log.ts';
import { defaultRenderSettings, renderDeployment } from '../../src/render/index.ts';

const LISTENER = '11111111-1111-4111-8111-111111111111';
const T = '2026-01-01T00:00:00Z';
const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const rev = (n: number) => `99999999-0000-4000-8000-${String(n).padStart(12, '0')}`;

/** `levels` nested objects or arrays, as JSON text. */
function nested(levels: number, kind: 'object' | 'array'): string {
  return kind === 'object'
    ? `${'{"a":'.repeat(levels)}"leaf"${'}'.repeat(levels)}`
    : `${'['.repeat(levels)}"leaf"${']'.repeat(levels)}`;
}

/** A deployment record of this listener with `spec` as its ResourceSpec. */
function record(n: number, spec: object): Record<string, unknown> {
  return {
    id: id(n),
    name: `app-${n}`,
    source: 'external_docker',
    source_config: {
      deployment_type: 'prod',
      listener_id: LISTENER,
      listener_config: { k8s_namespace: 'apps' },
      resource_spec: { min_scale: 1, max_scale: 1, cpu: 0.25, memory_mb: 128, ...spec },
    },
    source_revision_config: { image_uri: `registry.example.com/app-${n}:1` },
    secrets: [{ name: 'TOKEN', value: `t-${n}` }],
    tenant_id: '33333333-3333-4333-8333-333333333333',
    created_at: T,
    updated_at: T,
    status: 'READY',
    latest_revision_id: rev(n),
    active_revision_id: rev(n),
  };
}

function revision(n: number): Record<string, unknown> {
  return {
    id: rev(n),
    created_at: T,
    updated_at: T,
    status: 'DEPLOYED',
    source: 'external_docker',
    source_revision_config: { image_uri: `registry.example.com/app-${n}:1` },
  };
}

/** JSON text of `value` with the string "HOLE" replaced by `text`. */
const fill = (value: unknown, text: string) => JSON.stringify(value).replace('"HOLE"', text);

const sidecarValueFrom = {
  sidecars: [{ name: 'side', env: [{ name: 'A', valueFrom: { secretKeyRef: 'HOLE' } }] }],
};
const sidecarSecurity = { sidecars: [{ name: 'side', securityContext: { seLinuxOptions: 'HOLE' } }] };
const initSecurity = { init_containers: [{ name: 'init', securityContext: { capabilities: 'HOLE' } }] };

describe('a hostile control plane: records nested thousands of levels deep', () => {
  let server: Server;
  let client: ControlPlaneClient;
  /** The page and the revisions the server answers, as text. */
  const answers: { page: string; revisions: Map<string, string> } = { page: '', revisions: new Map() };

  beforeAll(async () => {
    server = createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://x');
      const m = /^\/v2\/deployments\/[^/]+\/revisions\/([^/]+)$/.exec(url.pathname);
      const text =
        url.pathname === '/v2/deployments' ? answers.page : m ? answers.revisions.get(m[1]!) : undefined;
      res.writeHead(text === undefined ? 404 : 200, { 'content-type': 'application/json' });
      res.end(text ?? '{"detail":"Not Found"}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    client = new ControlPlaneClient({ baseUrl: url, apiKey: 'k', retries: 0 });
  });

  afterAll(async () => {
    await client.close();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  /** Serves `records` (JSON texts) as one page, and each revision `n` (texts by number). */
  function serve(records: string[], revisions: Map<number, string>): void {
    answers.page = `{"resources":[${records.join(',')}],"offset":${records.length}}`;
    answers.revisions = new Map([...revisions].map(([n, text]) => [rev(n), text]));
  }

  it.each([
    { levels: 5_000, kind: 'object' as const },
    { levels: 5_000, kind: 'array' as const },
    { levels: 200_000, kind: 'array' as const },
  ])(
    'refuses each deep record alone ($levels levels of $kind), and the rest of the page goes on',
    async ({ levels, kind }) => {
      const deep = nested(levels, kind);
      const good = [1, 5].map((n) => JSON.stringify(record(n, {})));
      serve(
        [
          good[0]!,
          fill(record(2, sidecarValueFrom), deep),
          fill(record(3, sidecarSecurity), deep),
          // A record fine in itself whose revision is the deep one.
          JSON.stringify(record(4, {})),
          fill(record(6, initSecurity), deep),
          good[1]!,
        ],
        new Map([
          [1, JSON.stringify(revision(1))],
          [2, JSON.stringify(revision(2))],
          [3, JSON.stringify(revision(3))],
          [4, fill({ ...revision(4), x_future: 'HOLE' }, deep)],
          [5, JSON.stringify(revision(5))],
          [6, JSON.stringify(revision(6))],
        ]),
      );
      const poller = new Poller({
        client,
        listenerId: LISTENER,
        intervalMs: 10_000,
        logger: silentLogger(),
      });
      // Twice: the second poll compares the records it holds with the ones listed again.
      for (let poll = 0; poll < 2; poll++) {
        const snapshot = await poller.pollOnce();
        expect(snapshot.rejected).toEqual([]);
        const refused = Object.fromEntries(
          snapshot.deployments.map((d) => [d.deployment.name, d.refused?.code ?? 'ok']),
        );
        expect(refused).toEqual({
          'app-1': 'ok',
          'app-2': 'MOORING_E_RECORD_INVALID',
          'app-3': 'MOORING_E_RECORD_INVALID',
          'app-4': 'MOORING_E_RECORD_INVALID',
          'app-5': 'ok',
          'app-6': 'MOORING_E_RECORD_INVALID',
        });
        for (const d of snapshot.deployments) {
          if (d.refused) {
            expect(d.refused.message).toContain(`nested deeper than ${MAX_RECORD_DEPTH} levels`);
            expect(d.refused.message).not.toContain('leaf');
            continue;
          }
          // What the reconcile does with the rest: render, hash, and the text to send.
          expect(d.hash).toMatch(/^[0-9a-f]{64}$/);
          const { objects } = renderDeployment({
            deployment: d.deployment,
            revision: d.revision,
            settings: defaultRenderSettings(LISTENER),
          });
          // As the reconcile hands them to apply (src/reconcile/reconcile.ts).
          for (const o of objects as unknown as KubeObject[])
            expect(prepareForApply(o).body.length).toBeGreaterThan(0);
        }
      }
    },
  );

  it('renders and hashes a record at the depth limit, and refuses one a level deeper', async () => {
    // Seven levels hold the value (the record, source_config, resource_spec, sidecars, [0], env,
    // [0]); the poller counts the record as level 0, so the value may nest MAX_RECORD_DEPTH - 7
    // levels. valueFrom is passed through as it is (a securityContext's members are checked).
    const at = (levels: number) =>
      fill(
        record(7, { sidecars: [{ name: 'side', env: [{ name: 'A', valueFrom: 'HOLE' }] }] }),
        nested(levels, 'object'),
      );
    const poller = new Poller({
      client,
      listenerId: LISTENER,
      intervalMs: 10_000,
      logger: silentLogger(),
    });
    serve([at(MAX_RECORD_DEPTH - 7)], new Map([[7, JSON.stringify(revision(7))]]));
    const [d] = (await poller.pollOnce()).deployments;
    expect(d?.refused).toBeUndefined();
    // The limit sits below what the walks downstream can hold: render, hash, the text to send.
    const { objects } = renderDeployment({
      deployment: d!.deployment,
      revision: d!.revision,
      settings: defaultRenderSettings(LISTENER),
    });
    // As the reconcile hands them to apply (src/reconcile/reconcile.ts).
    for (const o of objects as unknown as KubeObject[])
      expect(prepareForApply(o).body.length).toBeGreaterThan(0);

    serve([at(MAX_RECORD_DEPTH - 6)], new Map([[7, JSON.stringify(revision(7))]]));
    const [past] = (await poller.pollOnce()).deployments;
    expect(past?.refused?.code).toBe('MOORING_E_RECORD_INVALID');
  });
});
