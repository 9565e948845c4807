/**
 * Least privilege, both ways: what the agent was seen to do (the sandbox's request log) against
 * what the chart's Roles grant, as sets of "verb group/resource @scope". A grant nobody used is
 * as much a finding as a use nobody granted. The scope is where the request lands (`watched`: a
 * namespace the agent deploys to, `release`: its own namespace, `cluster`: cluster-wide), so
 * one watched namespace stands for all of them.
 */
import type { RequestRecord } from '../../src/sandbox/request-log.ts';
import { authorizationVerb, type RoleLike } from './rbac.ts';

/** Where a request lands, as far as the comparison cares. */
export interface Scopes {
  watched: readonly string[];
  release: string;
}

function scopeOf(namespace: string, scopes: Scopes): string {
  if (namespace === '') return 'cluster';
  if (scopes.watched.includes(namespace)) return 'watched';
  if (namespace === scopes.release) return 'release';
  return `namespace ${namespace}`;
}

/** One access, as both sides are compared: `verb group/resource @scope`. */
export function accessKey(verb: string, group: string, resource: string, scope: string): string {
  return `${verb} ${group || 'core'}/${resource} @${scope}`;
}

/**
 * The accesses the authorizer checks for one logged request. A server-side apply is a patch, and
 * one that creates the object is also checked as a create (the API server authorizes both), so
 * the chart must grant `create` for every kind the agent applies.
 */
export function accessesOf(record: RequestRecord, scopes: Scopes): string[] {
  // GET of a namespace is a request in that namespace (as `rolesAllow` has it).
  const namespace =
    record.resource === 'namespaces' && record.group === '' && !record.namespace
      ? (record.name ?? '')
      : (record.namespace ?? '');
  const scope = scopeOf(namespace, scopes);
  const verbs = [authorizationVerb(record.verb)];
  if (record.verb === 'apply' && record.status === 201) verbs.push('create');
  return verbs.map((verb) => accessKey(verb, record.group, record.resource, scope));
}

/** Every access the roles grant, expanded rule by rule (resourceNames are checked elsewhere). */
export function grantedAccesses(roles: readonly RoleLike[], scopes: Scopes): Set<string> {
  const out = new Set<string>();
  for (const role of roles) {
    const scope = role.kind === 'Role' ? scopeOf(role.metadata.namespace ?? '', scopes) : 'cluster';
    for (const rule of role.rules ?? []) {
      for (const verb of rule.verbs) {
        for (const group of rule.apiGroups ?? []) {
          for (const resource of rule.resources ?? []) out.add(accessKey(verb, group, resource, scope));
        }
      }
    }
  }
  return out;
}

/** Granted but never used, and used but never granted; both empty for least privilege. */
export interface UsageComparison {
  unused: string[];
  missing: string[];
}

/** Compares the accesses used with those granted. */
export function compareUsage(used: Iterable<string>, granted: Iterable<string>): UsageComparison {
  const usedSet = new Set(used);
  const grantedSet = new Set(granted);
  return {
    unused: [...grantedSet].filter((a) => !usedSet.has(a)).sort(),
    missing: [...usedSet].filter((a) => !grantedSet.has(a)).sort(),
  };
}
