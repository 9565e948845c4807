import type { z } from 'zod';
import {
  type DeploymentCreate,
  type DeploymentFilters,
  type DeploymentPatch,
  type DeploymentRecord,
  deploymentUnsupported,
  describeIssues,
  type ListenerCreate,
  type ListenerPatch,
  type ListenerRecord,
  listenerUnsupported,
  MalformedPageError,
  type ParsedPage,
  parsePage,
  type RevisionFilters,
  type RevisionRecord,
  revisionUnsupported,
  tolerant,
} from '../contract/index.ts';
import { MooringError } from '../errors.ts';
import { type Logger, silentLogger } from '../log.ts';
import { type Call, type ControlPlaneRoute, Transport, type TransportOptions } from './client-http.ts';
import { collectStable, type Listing, type ListingOptions } from './client-listing.ts';
import { type PageMemo, recallOrParse } from './page-memo.ts';

export { LISTING_WALKS } from './client-listing.ts';
export type { Listing, ListingOptions } from './client-listing.ts';
import { filterQuery } from './client-query.ts';
import { pageVerdict, parseTotalCount, TOTAL_COUNT_HEADER } from './listing-total.ts';

export type { ControlPlaneRoute, RequestEvent } from './client-http.ts';

export type TokenRecord = z.infer<typeof tolerant.Token>;
export type ConnectionRecord = z.infer<typeof tolerant.Connection>;
export type RepositoryRecord = z.infer<typeof tolerant.Repository>;

/** Options of the control-plane client; see `TransportOptions` for defaults and units. */
export type ControlPlaneClientOptions = TransportOptions;

/** Page size the client asks for (the interface's maximum). */
const PAGE_LIMIT = 100;

/**
 * The client of the deployment management service: every endpoint of the interface, pages as
 * async iterators, responses parsed tolerantly (unknown values kept and flagged, a bad record
 * refused alone), every failure a `MooringError` with a `MOORING_E_CP_*` code.
 */
export class ControlPlaneClient {
  readonly #http: Transport;
  readonly #logger: Logger;

  constructor(options: ControlPlaneClientOptions) {
    this.#http = new Transport(options);
    this.#logger = options.logger ?? silentLogger();
  }

  /** How the control plane is reached (direct or which proxy, which CA), without credentials. */
  get route(): ControlPlaneRoute {
    return this.#http.route;
  }

  /** Pages of deployments matching `filters` (`limit`: page size, default 100); see `ListingOptions`. */
  listDeployments(
    filters: DeploymentFilters = {},
    options: ListingOptions<DeploymentRecord> = {},
  ): AsyncGenerator<ParsedPage<DeploymentRecord>> {
    const { limit, ...rest } = filters;
    return this.#pages(
      '/v2/deployments',
      '/v2/deployments',
      filterQuery(rest),
      limit,
      (body) => parsePage(body, tolerant.Deployment, deploymentUnsupported, options.known, options.slim),
      options.memo,
    );
  }

  /**
   * Every deployment matching `filters`, from all pages. Throws when any page fails: an
   * incomplete listing is never returned (the agent must not prune on one). `options`: what the
   * caller holds (records, pages) and who sees each page as it comes.
   */
  listAllDeployments(
    filters: DeploymentFilters = {},
    options: ListingOptions<DeploymentRecord> = {},
  ): Promise<Listing<DeploymentRecord>> {
    return collectStable(() => this.listDeployments(filters, options), options.onPage);
  }

  listRevisions(
    deploymentId: string,
    filters: RevisionFilters = {},
  ): AsyncGenerator<ParsedPage<RevisionRecord>> {
    const { limit, ...rest } = filters;
    return this.#pages(
      '/v2/deployments/{deployment_id}/revisions',
      `/v2/deployments/${enc(deploymentId)}/revisions`,
      filterQuery(rest),
      limit,
      (body) => parsePage(body, tolerant.Revision, revisionUnsupported),
    );
  }

  async getRevision(deploymentId: string, revisionId: string): Promise<RevisionRecord> {
    const call = get(
      '/v2/deployments/{deployment_id}/revisions/{revision_id}',
      `/v2/deployments/${enc(deploymentId)}/revisions/${enc(revisionId)}`,
    );
    return one(call, await this.#http.send(call), tolerant.Revision);
  }

  async createDeployment(body: DeploymentCreate): Promise<DeploymentRecord> {
    const call: Call = { method: 'POST', route: '/v2/deployments', path: '/v2/deployments', body, ok: [201] };
    return one(call, await this.#http.send(call), tolerant.Deployment);
  }

  async patchDeployment(deploymentId: string, body: DeploymentPatch): Promise<DeploymentRecord> {
    const call: Call = {
      method: 'PATCH',
      route: '/v2/deployments/{deployment_id}',
      path: `/v2/deployments/${enc(deploymentId)}`,
      body,
      ok: [200],
    };
    return one(call, await this.#http.send(call), tolerant.Deployment);
  }

  /** Marks the deployment AWAITING_DELETE (the agent then removes its objects). */
  async deleteDeployment(deploymentId: string): Promise<void> {
    await this.#http.send({
      method: 'DELETE',
      route: '/v2/deployments/{deployment_id}',
      path: `/v2/deployments/${enc(deploymentId)}`,
      ok: [204],
    });
  }

  listListenerPages(limit?: number): AsyncGenerator<ParsedPage<ListenerRecord>> {
    return this.#pages('/v2/listeners', '/v2/listeners', {}, limit, (body) =>
      parsePage(body, tolerant.Listener, listenerUnsupported),
    );
  }

  /** Every listener, from all pages; throws when any page fails. */
  listListeners(): Promise<Listing<ListenerRecord>> {
    return collectStable(() => this.listListenerPages());
  }

  async createListener(body: ListenerCreate): Promise<ListenerRecord> {
    const call: Call = { method: 'POST', route: '/v2/listeners', path: '/v2/listeners', body, ok: [201] };
    return one(call, await this.#http.send(call), tolerant.Listener);
  }

  async patchListener(listenerId: string, body: ListenerPatch): Promise<ListenerRecord> {
    const call: Call = {
      method: 'PATCH',
      route: '/v2/listeners/{listener_id}',
      path: `/v2/listeners/${enc(listenerId)}`,
      body,
      ok: [200],
    };
    return one(call, await this.#http.send(call), tolerant.Listener);
  }

  /** The calling user's OAuth tokens, optionally for one provider. */
  async listTokens(providerId?: string): Promise<TokenRecord[]> {
    const call = get(
      '/v2/auth/tokens',
      '/v2/auth/tokens',
      providerId ? { provider_id: providerId } : undefined,
    );
    return one(call, await this.#http.send(call), tolerant.Token.array());
  }

  async listConnections(agentId: string): Promise<ConnectionRecord[]> {
    const call = get('/v2/auth/agents/{agent_id}/connections', `/v2/auth/agents/${enc(agentId)}/connections`);
    return one(call, await this.#http.send(call), tolerant.ConnectionList).data;
  }

  /** Repositories of a hosted-git integration; `forge: true` uses the forge variant (4.4). */
  async listRepos(integrationId: string, options: { forge?: boolean } = {}): Promise<RepositoryRecord[]> {
    const prefix = options.forge ? '/v1/integrations/forge/vcshost' : '/v1/integrations/vcshost';
    const call = get(`${prefix}/{integration_id}/repos`, `${prefix}/${enc(integrationId)}/repos`);
    return one(call, await this.#http.send(call), tolerant.Repository.array());
  }

  async close(): Promise<void> {
    await this.#http.close();
  }

  /**
   * Walks pages until one is shorter than the page size, or until a full page reaches the
   * server's `X-Total-Count` exactly (ADR 0003: saves the empty request after a full last page;
   * a header that is absent, unparsable or contradicts the page is ignored). The server's
   * `offset` says where the next page starts; one that does not move forward is a bad response
   * (it would loop forever). With a `memo`, a page whose bytes it remembers is not parsed.
   */
  async *#pages<T>(
    route: string,
    path: string,
    filters: Record<string, string>,
    limit: number | undefined,
    parse: (body: unknown) => ParsedPage<T>,
    memo?: PageMemo<T>,
  ): AsyncGenerator<ParsedPage<T>> {
    const size = limit ?? PAGE_LIMIT;
    let offset = 0;
    let believedTotal: number | undefined;
    for (;;) {
      const call = get(route, path, { ...filters, limit: String(size), offset: String(offset) });
      if (memo) call.raw = true;
      const answer = await this.#http.exchange(call);
      const { headers } = answer;
      let page: ParsedPage<T>;
      try {
        page = memo ? recallOrParse(call, answer, parse, memo) : parse(answer.body);
      } catch (err) {
        if (err instanceof MalformedPageError) throw badResponse(call, err.message, err);
        throw err;
      }
      const count = page.items.length + page.rejected.length;
      if (count > 0 && page.offset <= offset) {
        throw badResponse(call, `page offset ${page.offset} does not move past ${offset}`);
      }
      // Records that left the listing ahead of the read position shift the rest of it towards
      // the front, so the next page would start past a record that is still there. A total
      // below one the walk could believe earlier shows it (new records only raise the total,
      // and only repeat one record at a boundary). A total below what was already received is
      // believed only as that evidence: on its own it is ignored, as ADR 0003 says.
      const total = parseTotalCount(headers[TOTAL_COUNT_HEADER]);
      if (total !== undefined && believedTotal !== undefined && total < believedTotal) {
        throw new MooringError(
          'MOORING_E_CP_LISTING_SHIFTED',
          `${call.method} ${route}: the total fell from ${believedTotal} to ${total} during the walk`,
          { details: { method: call.method, route } },
        );
      }
      if (total !== undefined && total >= offset + count) believedTotal = total;
      const verdict = pageVerdict({
        limit: size,
        requestedOffset: offset,
        count,
        nextOffset: page.offset,
        totalHeader: headers[TOTAL_COUNT_HEADER],
      });
      if (verdict.ignoredTotal) {
        this.#logger.debug(
          { method: call.method, route, offset, count, reason: verdict.ignoredTotal },
          'listing total header ignored; reading the next page',
        );
      }
      yield page;
      if (verdict.last) return;
      offset = page.offset;
    }
  }
}

function get(route: string, path: string, query?: Record<string, string>): Call {
  return { method: 'GET', route, path, ...(query ? { query } : {}), ok: [200] };
}

function enc(id: string): string {
  return encodeURIComponent(id);
}

function badResponse(call: Call, reason: string, cause?: unknown): MooringError {
  return new MooringError('MOORING_E_CP_BAD_RESPONSE', `${call.method} ${call.route}: ${reason}`, {
    details: { method: call.method, route: call.route },
    ...(cause ? { cause } : {}),
  });
}

/** Parses a single-resource response tolerantly; a record that does not parse is a bad response. */
function one<S extends z.ZodType>(call: Call, body: unknown, schema: S): z.infer<S> {
  const parsed = schema.safeParse(body);
  if (!parsed.success)
    throw badResponse(call, `response does not match the interface: ${describeIssues(parsed.error)}`);
  return parsed.data;
}
