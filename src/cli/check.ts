/**
 * `mooring check`: the preflight. Takes the settings of `mooring run` and checks, without writing
 * anything, what the agent needs before it can work: the Kubernetes API, every permission in every
 * namespace, the namespaces and their Pod Security level, the exposure kind, the control plane
 * through the configured route, the listener, and both clocks. One line per check; exit 1 on any
 * failure; `-o json` for scripts.
 */
import { controlPlaneTls } from '../agent/routes.ts';
import { describeError } from '../agent/safe-error.ts';
import { clockSkewCheck } from '../check/clock-skew.ts';
import { controlPlaneChecks } from '../check/control-plane.ts';
import { exposureCheck, kubernetesVersionCheck, namespaceChecks } from '../check/kubernetes.ts';
import { permissionChecks, requiredAccess } from '../check/permissions.ts';
import { type CheckResult, formatChecklist, passed, result } from '../check/result.ts';
import type { AgentConfig } from '../config.ts';
import { ControlPlaneClient } from '../control-plane/client.ts';
import { Transport, type TransportOptions } from '../control-plane/client-http.ts';
import { createKubeClient } from '../kube/clients.ts';
import type { KubeHttp } from '../kube/http.ts';
import { proxyPasswords } from '../proxy/from-environment.ts';
import type { Redactor } from '../redact.ts';
import { agentRedactor, kubeconfigSource, renderSettingsOf } from './agent-settings.ts';
import { parseAgentCommand } from './agent-flags.ts';
import { EXIT, type CliContext } from './context.ts';

const SUMMARY =
  'Check, writing nothing, what the agent needs: the Kubernetes API and its version, every permission in every namespace, the namespaces and their Pod Security level, the exposure kind, the control plane (through the configured proxy and CA), the API key, the listener and its namespaces, and clock skew against both. One line per check; exits 1 when any fails. Takes the settings of mooring run.';

/** The checks against the Kubernetes API, in order; later ones need it reachable. */
async function kubernetesChecks(
  kube: KubeHttp,
  config: AgentConfig,
  now: () => number,
): Promise<CheckResult[]> {
  const version = await kubernetesVersionCheck(kube, kube.server);
  const out = [version.check];
  if (!version.answer) {
    out.push(result('Kubernetes checks', 'skip', 'the API is not reachable'));
    return out;
  }
  out.push(clockSkewCheck('Kubernetes API', version.answer.headers?.date, now()));
  out.push(...(await namespaceChecks(kube, config.namespaces, config.podSecurity)));
  const settings = renderSettingsOf(config);
  const exposure = await exposureCheck(kube, settings.exposure);
  out.push(...exposure.checks);
  const accesses = requiredAccess(config, settings.exposure.kind, exposure.httpRouteServed);
  out.push(...(await permissionChecks(kube, accesses)));
  return out;
}

/** The checks against the control plane, through the agent's own route. */
async function controlPlaneSide(
  config: AgentConfig,
  env: CliContext['env'],
  now: () => number,
): Promise<CheckResult[]> {
  let options: TransportOptions;
  try {
    options = {
      baseUrl: config.controlPlaneUrl,
      apiKey: config.apiKey,
      ...(config.tenantId ? { tenantId: config.tenantId } : {}),
      env,
      tls: controlPlaneTls(config),
      retries: 1,
      timeoutMs: 10_000,
    };
  } catch (err) {
    const { code, message } = describeError(err);
    return [result('control plane reachable', 'fail', message, { code })];
  }
  const transport = new Transport(options);
  const client = new ControlPlaneClient(options);
  try {
    const found = await controlPlaneChecks(transport, client, {
      url: config.controlPlaneUrl,
      listenerId: config.listenerId,
      namespaces: config.namespaces,
    });
    const out = [...found.checks];
    if (found.answer) out.push(clockSkewCheck('control plane', found.answer.headers.date, now()));
    return out;
  } finally {
    await transport.close?.();
    await client.close();
  }
}

/** Every check for these settings (the kubeconfig given, or the agent's). */
export async function runChecks(
  config: AgentConfig,
  env: CliContext['env'],
  redactor: Redactor,
  now: () => number = Date.now,
): Promise<CheckResult[]> {
  redactor.set('proxy-credentials', proxyPasswords(env));
  let kube: KubeHttp | undefined;
  const out: CheckResult[] = [];
  try {
    kube = createKubeClient(kubeconfigSource(config, env), {
      env,
      // Not the agent's `mooring/<version> (<identity>)`: audit logs tell the preflight apart.
      userAgent: 'mooring-check',
      onCredentials: (values) => redactor.set('kube-credentials', values),
    });
  } catch (err) {
    const { code, message } = describeError(err);
    out.push(result('Kubernetes API reachable', 'fail', message, { code, fix: 'check --kubeconfig' }));
  }
  try {
    if (kube) out.push(...(await kubernetesChecks(kube, config, now)));
    out.push(...(await controlPlaneSide(config, env, now)));
  } finally {
    await kube?.close();
  }
  return out;
}

export async function check(argv: string[], ctx: CliContext): Promise<number> {
  const parsed = parseAgentCommand('check', SUMMARY, argv, ctx, { output: true });
  if (typeof parsed === 'number') return parsed;
  const { config, output } = parsed;
  const redactor = agentRedactor(config);
  const results = await runChecks(config, ctx.env, redactor);
  const text =
    output === 'json'
      ? `${JSON.stringify({ ok: passed(results), checks: results }, null, 2)}\n`
      : formatChecklist(results);
  ctx.stdout.write(redactor.scrub(text));
  return passed(results) ? EXIT.ok : EXIT.failure;
}
