/**
 * Two deployments of one listener exposed at the same host and path: the ingress controller (or
 * the gateway) merges or picks between their routes, so one record could take the traffic of
 * another. The deployment that held the URL at the previous poll keeps it, so that no record can
 * take a URL by changing its own; otherwise (a new URL, a start) the older keeps it (created_at,
 * then id). The other is refused, whether the holder runs or is refused itself. Nested paths on
 * one host (`/` and `/api`) are not claims: the longest prefix wins there, as the operator intends
 * when giving teams paths of one host (`exposure.allowedHosts` decides who may use a host).
 */
import type { DeploymentRecord } from '../contract/index.ts';
import { parseCustomUrl } from './exposure.ts';

/** A deployment refused because an older one of the listener is exposed at the same URL. */
export interface UrlClaim {
  code: 'MOORING_E_RENDER_URL_CLAIMED';
  /** The deployment that keeps the URL, then the refused one. */
  deploymentIds: [string, string];
  reason: string;
}

type Candidate = Pick<DeploymentRecord, 'id' | 'name' | 'created_at' | 'source_config'>;

const cmp = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** Host and path of `d`'s custom_url, or undefined when it has none or one rendering refuses. */
function urlOf(d: Candidate): string | undefined {
  const raw = d.source_config?.custom_url;
  if (typeof raw !== 'string' || raw === '') return undefined;
  try {
    const { host, path } = parseCustomUrl(raw);
    return `${host}${path}`;
  } catch {
    return undefined;
  }
}

/** The claims found, and who holds each URL (for the next poll's `previous`). */
export interface UrlClaims {
  claims: UrlClaim[];
  /** URL (host and path) -> the deployment that keeps it. */
  holders: Map<string, string>;
}

/**
 * The deployments whose custom_url another deployment keeps: the one `previous` (the last poll's
 * `holders`) names while it still has that URL, else the oldest. A record listed twice counts once.
 */
export function detectUrlClaims(
  deployments: ReadonlyArray<Candidate>,
  previous: ReadonlyMap<string, string> = new Map(),
): UrlClaims {
  const seen = new Set<string>();
  const urls = new Map<string, string | undefined>();
  const urlOfOnce = (d: Candidate) => {
    if (!urls.has(d.id)) urls.set(d.id, urlOf(d));
    return urls.get(d.id);
  };
  const held = (d: Candidate) => {
    const url = urlOfOnce(d);
    return url !== undefined && previous.get(url) === d.id;
  };
  const order = [...deployments]
    .filter((d) => !seen.has(d.id) && seen.add(d.id))
    .sort((a, b) => Number(held(b)) - Number(held(a)) || cmp(a.created_at, b.created_at) || cmp(a.id, b.id));
  const holders = new Map<string, Candidate>();
  const claims: UrlClaim[] = [];
  for (const d of order) {
    const url = urlOfOnce(d);
    if (url === undefined) continue;
    const holder = holders.get(url);
    if (holder === undefined) {
      holders.set(url, d);
      continue;
    }
    const why = held(holder) ? 'has it already' : 'is older';
    claims.push({
      code: 'MOORING_E_RENDER_URL_CLAIMED',
      deploymentIds: [holder.id, d.id],
      reason:
        `deployments ${holder.id} (${JSON.stringify(holder.name)}) and ${d.id} (${JSON.stringify(d.name)}) ` +
        `would both be exposed at ${url}: ${holder.id} ${why}, so ${d.id} is refused`,
    });
  }
  return { claims, holders: new Map([...holders].map(([url, d]) => [url, d.id])) };
}
