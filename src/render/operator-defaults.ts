/**
 * What the operator's settings add to every workload: the API server's probes, per-component
 * command, args and resource defaults, pod placement, the datastores' pull secrets.
 */
import type { Component } from './components.ts';
import { DEFAULT_RESOURCES, type ResourceDefaults } from './defaults.ts';
import type { RenderSettings } from './settings.ts';
import type { ProbeTiming } from './settings-workloads.ts';

/** Readiness, liveness and startup probes of the API server's container (port named `http`). */
export function apiServerProbes(settings: Pick<RenderSettings, 'probes'>): Record<string, unknown> {
  const { probes } = settings;
  if (!probes.enabled) return {};
  const handler = probes.path
    ? { httpGet: { path: probes.path, port: 'http' } }
    : { tcpSocket: { port: 'http' } };
  const probe = (t: ProbeTiming) => ({ ...structuredClone(handler), ...t });
  return {
    livenessProbe: probe(probes.liveness),
    readinessProbe: probe(probes.readiness),
    startupProbe: probe(probes.startup),
  };
}

/** A component's `command` and `args` from the settings; none set: the image's own. */
export function commandAndArgs(settings: RenderSettings, component: Component): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  const command = settings.commands?.[component];
  const args = settings.args?.[component];
  if (command && command.length > 0) out.command = [...command];
  if (args && args.length > 0) out.args = [...args];
  return out;
}

/** The resources a component gets when its ResourceSpec fields are absent. */
export function resourceDefaults(settings: RenderSettings, component: Component): ResourceDefaults {
  const d = DEFAULT_RESOURCES[component];
  const s = settings.resources?.[component];
  return { cpu: s?.cpu ?? d.cpu, memoryMb: s?.memoryMb ?? d.memoryMb };
}

/** Placement members of a pod spec for app or datastore pods. */
export function placementOf(settings: RenderSettings, pods: 'app' | 'datastores'): Record<string, unknown> {
  const p = settings.placement?.[pods];
  if (!p) return {};
  const out: Record<string, unknown> = {};
  if (p.affinity) out.affinity = structuredClone(p.affinity);
  if (p.nodeSelector) out.nodeSelector = { ...p.nodeSelector };
  if (p.priorityClassName) out.priorityClassName = p.priorityClassName;
  if (p.tolerations) out.tolerations = structuredClone(p.tolerations);
  if (p.topologySpreadConstraints)
    out.topologySpreadConstraints = structuredClone(p.topologySpreadConstraints);
  return out;
}

/** The datastore pods' imagePullSecrets: the settings' defaults, then the ResourceSpec's, each once. */
export function datastorePullSecrets(
  settings: RenderSettings,
  fromSpec: readonly { name: string }[] | undefined,
): { name: string }[] | undefined {
  const names = [...(settings.datastoreImagePullSecrets ?? []), ...(fromSpec ?? []).map((s) => s.name)];
  const unique = [...new Set(names)];
  return unique.length > 0 ? unique.map((name) => ({ name })) : undefined;
}
