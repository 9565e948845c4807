/**
 * The chart's Roles as the agent's ServiceAccount holds them, for tests that check a request log
 * against them (the integration suite feeds each sandbox request record to `rolesAllow`).
 */
import path from 'node:path';
import { chartDir } from '../../scripts/render-deploy.ts';
import { RELEASE, template } from './helm.ts';
import { boundRoles, type RoleLike } from './rbac.ts';

/** Values as `template` takes them: value files and inline objects, later ones winning. */
export type ChartValues = Array<string | Record<string, unknown>>;

/** What one rendering of the chart gives the agent: its Roles and its container's environment. */
export interface ChartInstall {
  roles: RoleLike[];
  /** The agent container's plain `env` values (those from Secrets are left out). */
  env: Map<string, string>;
}

/**
 * Renders the chart with real helm over `ci/default-values.yaml` and `values`, and returns the
 * Roles bound to the ServiceAccount `mooring/mooring` and the environment the agent would run with.
 */
export function chartInstall(values: ChartValues = []): ChartInstall {
  const objects = template([path.join(chartDir, 'ci', 'default-values.yaml'), ...values]);
  const deployment = objects.find((o) => o.kind === 'Deployment') as
    | {
        spec: {
          template: { spec: { containers: Array<{ env?: Array<{ name: string; value?: string }> }> } };
        };
      }
    | undefined;
  const env = new Map<string, string>();
  for (const e of deployment?.spec.template.spec.containers[0]?.env ?? []) {
    if (e.value !== undefined) env.set(e.name, e.value);
  }
  return { roles: boundRoles(objects, { name: 'mooring', namespace: RELEASE.namespace }), env };
}

export interface ChartRolesOptions {
  /** Watched namespaces (the chart's `namespaces`); default `['mooring-apps']`. */
  namespaces?: string[];
  /** The chart's `leaderElection.enabled`; default false. */
  leaderElection?: boolean;
  /** The chart's `leaderElection.leaseName`; default the chart's (`mooring-leader`). */
  leaseName?: string;
  /** The chart's `restartMemo.enabled`; default the chart's (on). */
  restartMemo?: boolean;
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
      ...(options.restartMemo === undefined ? {} : { restartMemo: { enabled: options.restartMemo } }),
    },
  ]);
  return boundRoles(objects, { name: 'mooring', namespace: RELEASE.namespace });
}
