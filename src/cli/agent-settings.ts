/**
 * What the composition root derives from the agent's settings before wiring it: where the
 * kubeconfig comes from, the renderer's settings, and the redactor that holds the credential.
 */
import { homedir } from 'node:os';
import path from 'node:path';
import { AUTO_KUBE_QPS, type AgentConfig } from '../config.ts';
import type { RateLimitOptions } from '../kube/rate-limit.ts';
import { isAgentVocabulary } from '../agent/redact-vocabulary.ts';
import type { ReconcileSettings } from '../reconcile/types.ts';
import { Redactor } from '../redact.ts';
import type { RenderSettings } from '../render/index.ts';

/**
 * Where the kubeconfig comes from: `given` (the sandbox's own), else `--kubeconfig`, else
 * in-cluster (a pod), else `$KUBECONFIG` (its first entry), else `~/.kube/config`.
 */
export function kubeconfigSource(
  config: Pick<AgentConfig, 'kubeconfig'>,
  env: Readonly<Record<string, string | undefined>>,
  given?: string,
): string {
  if (given !== undefined) return given;
  if (config.kubeconfig) return config.kubeconfig;
  if (env.KUBERNETES_SERVICE_HOST) return 'in-cluster';
  const fromEnv = env.KUBECONFIG?.split(path.delimiter).find((p) => p.length > 0);
  return fromEnv ?? path.join(homedir(), '.kube', 'config');
}

/**
 * The Kubernetes client's rate limit: `--kube-qps auto` starts at AUTO_KUBE_QPS and stands down
 * once the API server shows it runs API Priority and Fairness; a number is kept as given.
 */
export function kubeRateLimitOf(config: Pick<AgentConfig, 'kubeQps' | 'kubeBurst'>): RateLimitOptions {
  return config.kubeQps === 'auto'
    ? { qps: AUTO_KUBE_QPS, burst: config.kubeBurst, untilServerFlowControl: true }
    : { qps: config.kubeQps, burst: config.kubeBurst };
}

/** What a reconcile reads of the agent's settings. */
export function reconcileSettingsOf(config: AgentConfig): ReconcileSettings {
  return {
    listenerId: config.listenerId,
    namespaces: config.namespaces,
    deleteVolumes: config.deleteVolumes,
    recreateStatefulSets: config.recreateStatefulSets,
    dryRun: config.dryRun,
  };
}

/** The renderer's settings, as the agent's settings made them once (`AgentConfig.render`). */
export function renderSettingsOf(config: Pick<AgentConfig, 'render'>): RenderSettings {
  return config.render;
}

/**
 * The agent's redactor, holding the listener's credential (the API key) from the start; the agent
 * adds each deployment's secret values as it takes the records. The composition root makes it
 * before the logger (which scrubs every line with it) and hands it to `wireAgent`.
 */
export function agentRedactor(config: Pick<AgentConfig, 'apiKey'>): Redactor {
  const redactor = new Redactor({ vocabulary: isAgentVocabulary });
  redactor.set('api-key', [config.apiKey]);
  return redactor;
}
