/**
 * Name and URL collisions between a listener's deployments: which are refused so that the oldest
 * keeps what they would both use.
 */
import type { DeploymentRecord } from '../contract/index.ts';
import type { ErrorCode } from '../errors.ts';
import { detectCollisions } from '../render/names.ts';
import { tenantMayUse } from '../render/references.ts';
import { CustomUrls, detectUrlClaims } from '../render/url-claims.ts';

/**
 * Deployments any of whose object names an older deployment in the same namespace would use
 * (`detectCollisions`: every derived name, not only the base name): the oldest keeps its names,
 * the others are refused before anything of theirs is applied (until the collision is gone). A
 * deployment being deleted holds its names until its objects are gone (`rules.holdsObjects`; its
 * kept volumes are judged by their labels, reconcile/identity.ts), and is never refused itself:
 * its deletion goes on. Nor does one in a
 * namespace bound to another tenant: rendering refuses it, and it must not hold that tenant's
 * names against it. With `urls` (exposure is on), a custom_url another deployment keeps
 * (`detectUrlClaims`: the one that held it at the previous poll, `urlHolders`, else the oldest)
 * refuses the others too. Returns the refusals by deployment id, and this poll's URL holders.
 * `customUrls` parses custom_url once per record (the poller keeps one).
 */
export function collisionsOf(
  deployments: readonly DeploymentRecord[],
  rules: CollisionRules,
  urlHolders: ReadonlyMap<string, string> = new Map(),
  customUrls: CustomUrls = new CustomUrls(),
): { refused: Map<string, Refusal>; urlHolders: Map<string, string> } {
  const mayUse = (d: DeploymentRecord) =>
    tenantMayUse(d, d.source_config?.listener_config?.k8s_namespace ?? '', rules.namespaceTenants ?? {});
  const deleting = (d: DeploymentRecord) => d.status === 'AWAITING_DELETE';
  const live = deployments.filter((d) => !deleting(d) && mayUse(d));
  // Unknown (no listing yet) counts as holding: a name is released only once seen free.
  const holding = deployments.filter((d) => deleting(d) && mayUse(d) && rules.holdsObjects?.(d.id) !== false);
  const out = new Map<string, Refusal>();
  const held = new Set(holding.map((d) => d.id));
  for (const c of detectCollisions(holding.length > 0 ? [...live, ...holding] : live)) {
    if (!held.has(c.deploymentIds[1])) out.set(c.deploymentIds[1], { code: c.code, message: c.reason });
  }
  const urls = rules.urls?.()
    ? detectUrlClaims(live, urlHolders, customUrls)
    : { claims: [], holders: new Map() };
  for (const c of urls.claims) {
    if (!out.has(c.deploymentIds[1])) out.set(c.deploymentIds[1], { code: c.code, message: c.reason });
  }
  return { refused: out, urlHolders: urls.holders };
}

/** What decides collisions between a listener's deployments. */
export interface CollisionRules {
  /** Namespace → tenant id (`--namespace-tenants`); default none bound. */
  namespaceTenants?: Readonly<Record<string, string>> | undefined;
  /** Whether deployments are exposed at their custom_url (then two may not share one); default not. */
  urls?: (() => boolean) | undefined;
  /**
   * Whether a deployment still owns objects other than its kept volumes, by the agent's latest
   * listing (undefined before one). A deployment being deleted holds its names while it does.
   */
  holdsObjects?: ((deploymentId: string) => boolean | undefined) | undefined;
}

/** A coded refusal of one deployment. */
export interface Refusal {
  code: ErrorCode;
  message: string;
}
