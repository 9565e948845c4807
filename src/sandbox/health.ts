/**
 * `/healthz`, `/livez` and `/readyz` as kube-apiserver answers them: `ok`, or with `?verbose` one
 * `[+]<check> ok` line per check then `<endpoint> check passed`; `/<endpoint>/<check>` answers
 * one check. The checks are those of a kube-apiserver that has started (all pass here).
 */
import type { ServerResponse } from 'node:http';

const LIVE = [
  'ping',
  'log',
  'etcd',
  'poststarthook/start-apiserver-admission-initializer',
  'poststarthook/generic-apiserver-start-informers',
  'poststarthook/priority-and-fairness-config-consumer',
  'poststarthook/priority-and-fairness-filter',
  'poststarthook/storage-object-count-tracker-hook',
  'poststarthook/bootstrap-controller',
  'poststarthook/start-kube-aggregator-informers',
];
/** Readiness adds the storage's readiness, the informers' sync and the shutdown check. */
const CHECKS: Record<string, readonly string[]> = {
  healthz: LIVE,
  livez: LIVE,
  readyz: [...LIVE.slice(0, 3), 'etcd-readiness', 'informer-sync', ...LIVE.slice(3), 'shutdown'],
};

/** Answers a health path; false when `path` is not one. */
export function serveHealth(path: string, query: URLSearchParams, res: ServerResponse): boolean {
  const [, endpoint, ...rest] = path.split('/');
  const checks = CHECKS[endpoint ?? ''];
  if (!checks) return false;
  const one = rest.join('/');
  if (one !== '' && !checks.includes(one)) return false;
  const excluded = new Set(query.getAll('exclude'));
  let body = 'ok';
  if (one === '' && query.has('verbose')) {
    const lines = checks.map((c) => (excluded.has(c) ? `[+]${c} excluded: ok` : `[+]${c} ok`));
    body = `${lines.join('\n')}\n${endpoint} check passed\n`;
  }
  res.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8', 'X-Content-Type-Options': 'nosniff' });
  res.end(body);
  return true;
}
