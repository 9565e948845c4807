/**
 * Two deployments of one listener exposed at the same host and path: the ingress controller (or
 * the gateway) merges or picks between their routes, so one record could take the traffic of
 * another. The deployment that held the URL at the previous poll keeps it, so that no record can
 * take a URL by changing its own; otherwise (a new URL, a start) the older keeps it (created_at,
 * then id). The other is refused, whether the holder runs or is refused itself. Nested paths on
 * one host (`/` and `/api`) are not claims: the longest prefix wins there, as the operator intends
 * when giving teams paths of one host (`exposure.allowedHosts` decides who may use a host).
 */
import { parseCustomUrl } from './exposure.ts';
import { type Candidate, oldestFirst } from './names.ts';

/** A deployment refused because another of the listener keeps the URL it asks for. */
export interface UrlClaim {
  code: 'MOORING_E_RENDER_URL_CLAIMED';
  /** The deployment that keeps the URL, then the refused one. */
  deploymentIds: [string, string];
  reason: string;
}

/**
 * Host and path of each record's custom_url, parsed once per record object: a parsed record is
 * never changed, and an entry goes with its record (a poll's new records are parsed anew). The
 * poller keeps one for its life, so an idle poll parses nothing.
 */
export class CustomUrls {
  readonly #urls = new WeakMap<Candidate, string | undefined>();

  /** Host and path of `d`'s custom_url, or undefined when it has none or one rendering refuses. */
  of(d: Candidate): string | undefined {
    if (this.#urls.has(d)) return this.#urls.get(d);
    const raw = d.source_config?.custom_url;
    let url: string | undefined;
    if (typeof raw === 'string' && raw !== '') {
      try {
        const { host, path } = parseCustomUrl(raw);
        url = `${host}${path}`;
      } catch {
        url = undefined;
      }
    }
    this.#urls.set(d, url);
    return url;
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
 * `urls` parses the records' custom_url (a caller that detects at every poll keeps one).
 */
export function detectUrlClaims(
  deployments: ReadonlyArray<Candidate>,
  previous: ReadonlyMap<string, string> = new Map(),
  urls: CustomUrls = new CustomUrls(),
): UrlClaims {
  const exposed = oldestFirst(deployments).flatMap((d) => {
    const url = urls.of(d);
    return url === undefined ? [] : [{ d, url, held: previous.get(url) === d.id }];
  });
  // Last poll's holders first; the sort is stable, so the rest stay oldest first.
  exposed.sort((a, b) => Number(b.held) - Number(a.held));
  const holders = new Map<string, (typeof exposed)[number]>();
  const claims: UrlClaim[] = [];
  for (const e of exposed) {
    const holder = holders.get(e.url);
    if (holder === undefined) {
      holders.set(e.url, e);
      continue;
    }
    const { d } = e;
    const h = holder.d;
    claims.push({
      code: 'MOORING_E_RENDER_URL_CLAIMED',
      deploymentIds: [h.id, d.id],
      reason:
        `deployments ${h.id} (${JSON.stringify(h.name)}) and ${d.id} (${JSON.stringify(d.name)}) ` +
        `would both be exposed at ${e.url}: ${h.id} ${holder.held ? 'has it already' : 'is older'}, so ${d.id} is refused`,
    });
  }
  return { claims, holders: new Map([...holders].map(([url, h]) => [url, h.d.id])) };
}
