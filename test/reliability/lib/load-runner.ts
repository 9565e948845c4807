/**
 * The load generator, in a process of its own so it does not share an event loop with the server
 * it measures: runs autocannon with the plan given as JSON in argv[2] and prints the result as
 * one JSON line. Mixed traffic: deployment listings, revision reads and image PATCHes.
 */
import autocannon from 'autocannon';

interface Plan {
  url: string;
  apiKey: string;
  durationSeconds: number;
  ratePerSecond: number;
  connections: number;
  /** Deployment ids with one revision id each, to read and patch. */
  targets: { id: string; revisionId: string }[];
}

const plan = JSON.parse(process.argv[2] ?? '{}') as Plan;
let n = 0;
const pick = () => plan.targets[n++ % plan.targets.length] as Plan['targets'][number];
const headers = { 'x-api-key': plan.apiKey, 'content-type': 'application/json' };

// 10 requests per round: 6 listings (two page sizes, a filter), 3 revision reads, 1 PATCH.
const list = (query: string) => ({ method: 'GET' as const, path: `/v2/deployments?${query}`, headers });
const revision = {
  method: 'GET' as const,
  path: '/',
  headers,
  setupRequest: (req: { path: string }) => {
    const t = pick();
    return { ...req, path: `/v2/deployments/${t.id}/revisions/${t.revisionId}` };
  },
};
const patch = {
  method: 'PATCH' as const,
  path: '/',
  headers,
  setupRequest: (req: { path: string; body?: string }) => {
    const t = pick();
    return {
      ...req,
      path: `/v2/deployments/${t.id}`,
      body: JSON.stringify({ source_revision_config: { image_uri: `registry.example.com/load/app:${n}` } }),
    };
  },
};
const requests = [
  list('limit=20'),
  revision,
  list('limit=100'),
  list('limit=20&offset=20'),
  revision,
  list('remote_reconciled=true&limit=50'),
  patch,
  list('limit=10&name_contains=load'),
  revision,
  list('limit=100&offset=100'),
];

const result = await autocannon({
  url: plan.url,
  connections: plan.connections,
  duration: plan.durationSeconds,
  overallRate: plan.ratePerSecond,
  requests,
});
process.stdout.write(
  `${JSON.stringify({
    total: result.requests.total,
    averagePerSecond: result.requests.average,
    latency: {
      p50: result.latency.p50,
      p90: result.latency.p90,
      p99: result.latency.p99,
      max: result.latency.max,
    },
    errors: result.errors,
    timeouts: result.timeouts,
    non2xx: result.non2xx,
    status5xx: result['5xx'],
    statusCodes: Object.fromEntries(Object.entries(result.statusCodeStats).map(([k, v]) => [k, v.count])),
  })}\n`,
);
