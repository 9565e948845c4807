/**
 * Rule 8 of the observed state (kube/observed-state.ts, ADR 0014), as the resync applies it: a
 * deployment whose objects the watches saw unchanged since it was verified is left alone.
 */
import type { DesiredDeployment } from './poll-cycle.ts';

/**
 * Whether a resync may leave `d` alone: Ready, not exposed at a custom URL (the exposure kinds are
 * not watched), and nothing of it changed since it was verified (`quiet`, from the watches).
 */
export function quietOnResync(
  d: DesiredDeployment,
  state: string | undefined,
  quiet: ((deploymentId: string) => boolean) | undefined,
): boolean {
  if (!quiet || state !== 'Ready') return false;
  return !d.deployment.source_config.custom_url && quiet(d.deployment.id);
}
