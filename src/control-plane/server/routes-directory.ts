import { TokenListQuery } from '../../contract/index.ts';
import { NoQuery, parseQuery, uuidParam } from './params.ts';
import { PUBLIC_PROVIDER_NAME } from './public-spellings.ts';
import type { Router } from './router.ts';
import type { ControlStore } from './control-store.ts';

/** Tokens (4.1), agent connections (4.2) and integration repositories (4.3, 4.4). */
export function directoryRoutes(router: Router, store: ControlStore): void {
  router.on('GET', '/v2/auth/tokens', (ctx) => {
    const { provider_id } = parseQuery(TokenListQuery, ctx.query);
    return { status: 200, body: store.directory.tokens(provider_id) };
  });

  router.on('GET', '/v2/auth/agents/{agent_id}/connections', (ctx) => {
    parseQuery(NoQuery, ctx.query);
    return { status: 200, body: { data: store.directory.connections(ctx.params.agent_id!) } };
  });

  // The public API names the provider in these paths (`github`); both spellings are served.
  for (const provider of ['vcshost', PUBLIC_PROVIDER_NAME]) {
    router.on('GET', `/v1/integrations/${provider}/{integration_id}/repos`, (ctx) => {
      const id = uuidParam(ctx.params, 'integration_id');
      parseQuery(NoQuery, ctx.query);
      return { status: 200, body: store.directory.repos(id, 'vcshost') };
    });

    router.on('GET', `/v1/integrations/forge/${provider}/{integration_id}/repos`, (ctx) => {
      const id = uuidParam(ctx.params, 'integration_id');
      parseQuery(NoQuery, ctx.query);
      return { status: 200, body: store.directory.repos(id, 'forge') };
    });
  }
}
