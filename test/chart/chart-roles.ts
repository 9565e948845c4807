/**
 * The chart's Roles as the agent's ServiceAccount holds them, for tests that check a request log
 * against them (the integration suite feeds each sandbox request record to `rolesAllow`).
 */
import path from 'node:path';
import { chartDir } from '../../scripts/render-deploy.ts';
import { RELEASE, template } from './helm.ts';
import { boundRoles, type RoleLike } from './rbac.ts';

export interface ChartRolesOptions {
  /** Watched namespaces (the chart's `namespaces`); default `['mooring-apps']`. */
  namespaces?: string[];
  /** The chart's `leaderElection.enabled`; default false. */
  leaderElection?: boolean;
  /** The chart's `leaderElection.leaseName`; default the chart's (`mooring-leader`). */
  leaseName?: string;
  /** The chart's `rendering.exposure`; default none. */
  exposure?: Record<string, unknown>;
}

/**
 * Renders the chart with real helm (release `mooring` in namespace `mooring`) and returns the
 * Roles its RoleBindings grant to the ServiceAccount `mooring/mooring`.
 */
export function chartRoles(options: ChartRolesOptions = {}): RoleLike[] {
  const objects = template([
    path.join(chartDir, 'ci', 'default-values.yaml'),
    {
      ...(options.namespaces ? { namespaces: options.namespaces } : {}),
      leaderElection: {
        enabled: options.leaderElection ?? false,
        ...(options.leaseName ? { leaseName: options.leaseName } : {}),
      },
      ...(options.exposure ? { rendering: { exposure: options.exposure } } : {}),
    },
  ]);
  return boundRoles(objects, { name: 'mooring', namespace: RELEASE.namespace });
}
