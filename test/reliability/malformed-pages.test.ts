/**
 * Malformed control-plane data (fast-check). 10,000 fuzzed pages go through the page parsing the
 * client runs on every response (`parsePage` with the tolerant Deployment schema), and 1,000
 * bodies that are not pages at all; then 150 fuzzed listings (up to 3 pages each) are served by a
 * loopback HTTP server to the real client and the agent's real poll-and-dispatch code
 * (`Agent.runOnce` with a recording reconcile). Never a crash; every good record is reconciled;
 * every bad one is refused alone with a code (and a reason that quotes no value); a record with a
 * value the agent does not know is refused alone with its own code; a body that is not a page
 * makes the whole listing fail (nothing acted on), never a partial one.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Agent } from '../../src/agent/agent.ts';
import { parseAgentConfig } from '../../src/config.ts';
import {
  deploymentUnsupported,
  type ListenerRecord,
  MalformedPageError,
  parsePage,
  tolerant,
} from '../../src/contract/index.ts';
import { ControlPlaneClient } from '../../src/control-plane/client.ts';
import { errorCode, MooringError } from '../../src/errors.ts';
import { createLogger } from '../../src/log.ts';
import { createMetrics } from '../../src/ops/metrics.ts';
import {
  brokenEnvelopeArb,
  buildRecords,
  CANARY,
  type FuzzRecord,
  isEnvelope,
  listingSlotsArb,
  listRequestsFor,
  OURS,
  pageSlotsArb,
  type TotalPlan,
  totalHeader,
  totalPlanArb,
  validRecord,
} from './lib/fuzz-pages.ts';

const idOf = (r: FuzzRecord) => (r.raw as { id: string }).id;

describe('page parsing: 10,000 fuzzed pages', () => {
  it('keeps every valid record, refuses each bad one alone with a code, flags unknown values', () => {
    let records = 0;
    fc.assert(
      fc.property(pageSlotsArb, (slots) => {
        const recs = buildRecords(slots);
        records += recs.length;
        const page = parsePage(
          { resources: recs.map((r) => r.raw), offset: recs.length },
          tolerant.Deployment,
          deploymentUnsupported,
        );
        const kept = recs.flatMap((r, i) => (r.expect === 'invalid' ? [] : [i]));
        const refused = recs.flatMap((r, i) => (r.expect === 'invalid' ? [i] : []));
        const flagged = recs.flatMap((r, i) => (r.expect === 'unsupported' ? [i] : []));
        expect(page.items.map((d) => d.id)).toEqual(kept.map((i) => idOf(recs[i] as FuzzRecord)));
        expect(page.rejected.map((r) => r.index)).toEqual(refused);
        expect(page.unsupported.map((u) => u.index)).toEqual(flagged);
        for (const r of page.rejected) {
          expect(r.code).toBe('MOORING_E_RECORD_INVALID');
          expect(r.reason.length).toBeGreaterThan(0);
          expect(r.reason).not.toContain(CANARY);
        }
        for (const u of page.unsupported) expect(u.code).toBe('MOORING_E_RECORD_UNSUPPORTED');
        expect(page.offset).toBe(recs.length);
      }),
      { numRuns: 10_000, seed: 9001 },
    );
    // The pages were not trivially small: tens of thousands of records went through.
    expect(records).toBeGreaterThan(30_000);
  });

  it('a body that is not a page throws MalformedPageError, and nothing else (1,000 bodies)', () => {
    fc.assert(
      fc.property(
        brokenEnvelopeArb.filter((b) => !isEnvelope(b)),
        (body) => {
          expect(() => parsePage(body, tolerant.Deployment, deploymentUnsupported)).toThrow(
            MalformedPageError,
          );
        },
      ),
      { numRuns: 1_000, seed: 9002 },
    );
  });
});

/** A control plane on loopback that serves whatever listing the test sets, paged as the interface says. */
function fuzzServer() {
  const state: {
    listing: unknown[];
    brokenPage?: { index: number; body: unknown };
    rawPage?: string;
    /** Revision ids answered with a body that is not a revision. */
    badRevisions: Set<string>;
    /** How `X-Total-Count` is filled (ADR 0003): honest, absent or wrong. */
    total: TotalPlan;
  } = { listing: [], badRevisions: new Set(), total: { mode: 'honest', pick: 0 } };
  let requests = 0;
  let listRequests = 0;
  const server: Server = createServer((req, res) => {
    requests += 1;
    const url = new URL(req.url ?? '/', 'http://x');
    const send = (status: number, body: unknown, headers: Record<string, string | string[]> = {}) => {
      res.writeHead(status, { 'content-type': 'application/json', ...headers });
      res.end(JSON.stringify(body));
    };
    if (url.pathname === '/v2/deployments' && state.rawPage !== undefined) {
      // Served as text: JSON.stringify itself cannot write what some tests send.
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(state.rawPage);
      return;
    }
    if (url.pathname === '/v2/deployments') {
      listRequests += 1;
      const limit = Number(url.searchParams.get('limit') ?? 20);
      const offset = Number(url.searchParams.get('offset') ?? 0);
      if (state.brokenPage && state.brokenPage.index === Math.floor(offset / limit)) {
        send(200, state.brokenPage.body);
        return;
      }
      const resources = state.listing.slice(offset, offset + limit);
      const total = totalHeader(state.total, state.listing.length, offset, resources.length);
      send(
        200,
        { resources, offset: offset + resources.length },
        total === undefined ? {} : { 'x-total-count': total },
      );
      return;
    }
    const rev = /^\/v2\/deployments\/([^/]+)\/revisions\/([^/]+)$/.exec(url.pathname);
    if (rev && state.badRevisions.has(decodeURIComponent(rev[2] as string))) {
      send(200, { id: 42, status: ['not', 'a', 'status'] });
      return;
    }
    if (rev) {
      send(200, {
        id: decodeURIComponent(rev[2] as string),
        created_at: '2026-01-01T00:00:00Z',
        updated_at: '2026-01-01T00:00:00Z',
        status: 'DEPLOYED',
        source: 'external_docker',
        source_revision_config: { image_uri: 'registry.example.com/app:1.0.0' },
      });
      return;
    }
    send(404, { detail: 'not found' });
  });
  return { server, state, requests: () => requests, listRequests: () => listRequests };
}

describe('the agent over loopback: 150 fuzzed listings through the real client and poll loop', () => {
  const fuzz = fuzzServer();
  let url = '';
  let client: ControlPlaneClient;

  beforeAll(async () => {
    await new Promise<void>((resolve) => fuzz.server.listen(0, '127.0.0.1', () => resolve()));
    url = `http://127.0.0.1:${(fuzz.server.address() as AddressInfo).port}`;
    client = new ControlPlaneClient({ baseUrl: url, apiKey: 'fuzz-key', retries: 0 });
  });

  afterAll(async () => {
    await client?.close();
    await new Promise<void>((resolve) => fuzz.server.close(() => resolve()));
  });

  function agentFor(reconciled: string[], lines: string[]) {
    const parsed = parseAgentConfig({
      argv: [],
      env: {
        MOORING_CONTROL_PLANE_URL: url,
        MOORING_API_KEY: 'fuzz-key',
        MOORING_LISTENER_ID: OURS,
        MOORING_NAMESPACES: 'apps',
      },
    });
    if (!parsed.ok || parsed.help) throw new Error('config');
    const logger = createLogger({ level: 'debug', destination: { write: (s: string) => lines.push(s) } });
    return new Agent({
      config: parsed.config,
      version: 'fuzz',
      logger,
      metrics: createMetrics({ version: 'fuzz' }),
      controlPlane: {
        listAllDeployments: (f) => client.listAllDeployments(f),
        getRevision: (d, r) => client.getRevision(d, r),
        // A run checks its listener exists before it polls (as `mooring diff` does).
        listListeners: async () => ({
          items: [
            {
              id: OURS,
              compute_type: 'k8s',
              compute_id: 'fuzz',
              created_at: '2026-01-01T00:00:00Z',
              updated_at: '2026-01-01T00:00:00Z',
            } as ListenerRecord,
          ],
          rejected: [],
          unsupported: [],
        }),
        patchListener: async () => {
          throw new Error('not used by runOnce');
        },
      },
      readNamespace: async () => {},
      reconcile: async ({ deployment }) => {
        reconciled.push(deployment.id);
        return { changeSet: { entries: [], dryRun: false }, health: { state: 'Ready', reason: 'ok' } };
      },
      collectOrphans: async () => ({}),
    });
  }

  it('reconciles each good record once, refuses each bad or unknown one alone with a code, never crashes', async () => {
    let listings = 0;
    let broken = 0;
    let reconciledTotal = 0;
    const modes = new Set<string>();
    let fullLastPage = 0;
    await fc.assert(
      fc.asyncProperty(
        listingSlotsArb,
        // One listing in ten has a page that is not a page at all.
        fc.oneof(
          { arbitrary: fc.constant(null), weight: 9 },
          {
            arbitrary: fc.record({
              index: fc.nat({ max: 2 }),
              body: brokenEnvelopeArb.filter((b) => !isEnvelope(b)),
            }),
            weight: 1,
          },
        ),
        totalPlanArb,
        async (slots, brokenPage, total) => {
          listings += 1;
          const recs = buildRecords(slots);
          fuzz.state.listing = recs.map((r) => r.raw);
          fuzz.state.total = total;
          modes.add(total.mode);
          if (recs.length > 0 && recs.length % 100 === 0) fullLastPage += 1;
          // The pages a correct client asks for: a page past them is never read.
          const pages = listRequestsFor(total, recs.length);
          const breaks = brokenPage !== null && brokenPage.index < pages;
          fuzz.state.brokenPage = breaks ? (brokenPage ?? undefined) : undefined;
          const reconciled: string[] = [];
          const lines: string[] = [];
          const agent = agentFor(reconciled, lines);
          if (breaks) {
            broken += 1;
            const err = await agent.runOnce(AbortSignal.timeout(20_000)).then(
              () => undefined,
              (e: unknown) => e,
            );
            expect(err).toBeInstanceOf(MooringError);
            expect(errorCode(err)).toBe('MOORING_E_CP_BAD_RESPONSE');
            expect(reconciled).toEqual([]);
            return;
          }
          const listed = fuzz.listRequests();
          const snapshot = await agent.runOnce(AbortSignal.timeout(20_000));
          // One request per page with an honest total; otherwise one more after a full last page.
          expect(fuzz.listRequests() - listed).toBe(pages);
          const want = (e: FuzzRecord['expect']) => recs.filter((r) => r.expect === e).map(idOf);
          expect([...reconciled].sort()).toEqual(want('good').sort());
          reconciledTotal += reconciled.length;
          // Unknown values: seen, refused alone with their own code, not reconciled.
          const status = new Map(agent.statusDocument().deployments.map((d) => [d.id, d]));
          for (const id of want('unsupported')) {
            expect(status.get(id)?.state).toBe('Refused');
            expect(status.get(id)?.reason).toMatch(/^MOORING_E_RECORD_UNSUPPORTED/);
          }
          for (const id of want('other')) expect(status.has(id)).toBe(false);
          // Invalid records: refused alone, each reported with its code in the snapshot and the log.
          const invalid = recs.filter((r) => r.expect === 'invalid').length;
          expect(snapshot.rejected).toHaveLength(invalid);
          for (const r of snapshot.rejected) expect(r.code).toBe('MOORING_E_RECORD_INVALID');
          const refusedLines = lines.filter((l) => l.includes('deployment record refused'));
          expect(refusedLines).toHaveLength(invalid);
          for (const l of refusedLines) expect(l).toContain('MOORING_E_RECORD_INVALID');
          expect(lines.join('')).not.toContain(CANARY);
        },
      ),
      { numRuns: 150, seed: 9003 },
    );
    console.log(
      `fuzzed listings: ${listings} (${broken} with a broken page, ${fullLastPage} with a full last page, totals ${[...modes].sort().join('/')}), ${reconciledTotal} reconciles, ${fuzz.requests()} requests`,
    );
    expect(modes.size).toBe(6);
    expect(fullLastPage).toBeGreaterThan(5);
    expect(broken).toBeGreaterThan(0);
    expect(reconciledTotal).toBeGreaterThan(1000);
  }, 120_000);

  // Bug (src/kube/desired-hash.ts canonicalJson, called by src/agent/poller.ts desiredStateHash):
  // a record with an unknown member nested ~3,000+ deep passes the tolerant parse (unknown members
  // are kept), then the recursive canonicalJson overflows the stack, pollOnce throws RangeError and
  // every poll fails: one record blocks the whole listing instead of being refused alone.
  it('a record nested 5,000 deep is refused alone; the rest of the listing is reconciled (regression: recursive canonicalJson)', async () => {
    const good = [0, 2].map((i) =>
      validRecord(`22222222-2222-4222-8222-${String(i).padStart(12, '0')}`, OURS, i),
    );
    const deepText = `${'{"n":'.repeat(5_000)}"leaf"${'}'.repeat(5_000)}`;
    const deepRecord = `${JSON.stringify(validRecord('22222222-2222-4222-8222-000000000001', OURS, 1)).slice(0, -1)},"x_future":${deepText}}`;
    fuzz.state.rawPage = `{"resources":[${JSON.stringify(good[0])},${deepRecord},${JSON.stringify(good[1])}],"offset":3}`;
    const reconciled: string[] = [];
    const lines: string[] = [];
    try {
      await agentFor(reconciled, lines).runOnce(AbortSignal.timeout(20_000));
    } finally {
      fuzz.state.rawPage = undefined;
    }
    expect(reconciled.sort()).toEqual(good.map((g) => g.id as string).sort());
  });

  // Bug (src/agent/poller.ts #desired + MOORING_E_CP_BAD_RESPONSE being retryable): a malformed
  // revision response for one deployment makes pollOnce throw, so the whole listing fails and no
  // deployment is reconciled while that revision stays malformed.
  it('a malformed revision refuses its deployment alone; the others are reconciled (regression: poller rethrew a retryable BAD_RESPONSE)', async () => {
    const records = [3, 4, 5].map((i) =>
      validRecord(`22222222-2222-4222-8222-${String(i).padStart(12, '0')}`, OURS, i),
    );
    const badRevision = records[1]?.latest_revision_id as string;
    fuzz.state.listing = records;
    fuzz.state.brokenPage = undefined;
    fuzz.state.badRevisions = new Set([badRevision]);
    const reconciled: string[] = [];
    const agent = agentFor(reconciled, []);
    try {
      await agent.runOnce(AbortSignal.timeout(20_000));
    } finally {
      fuzz.state.badRevisions = new Set();
    }
    expect(reconciled.sort()).toEqual([records[0]?.id, records[2]?.id].sort());
    const refused = agent.statusDocument().deployments.find((d) => d.id === records[1]?.id);
    expect(refused?.state).toBe('Refused');
  });
});
