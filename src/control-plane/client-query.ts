import type { DeploymentFilters, RevisionFilters } from '../contract/index.ts';

/**
 * Filters as query parameters, with the names docs/control-plane.md fixes: lists become comma lists,
 * booleans `true`/`false`; undefined members are left out.
 */
export function filterQuery(
  filters: Omit<DeploymentFilters, 'limit'> | Omit<RevisionFilters, 'limit'>,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(filters)) {
    if (value === undefined || value === null) continue;
    out[key] = Array.isArray(value) ? value.join(',') : String(value);
  }
  return out;
}
