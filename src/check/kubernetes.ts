/**
 * The Kubernetes half of `mooring check`: the API reachable and recent enough, the namespaces there
 * with a Pod Security level that admits what the agent renders, and the exposure kind served.
 */
import { describeError } from '../agent/safe-error.ts';
import { httpStatusOf, kubeError } from '../kube/errors.ts';
import { servesKind } from '../kube/exposure-discovery.ts';
import type { KubeHttp, KubeResponse } from '../kube/http.ts';
import { kindInfo } from '../objects/kinds.ts';
import type { ExposureSettings } from '../render/exposure-settings.ts';
import type { PodSecurityLevel } from '../pod-security-lists.ts';
import { type CheckResult, result } from './result.ts';

type Kube = Pick<KubeHttp, 'request'>;

/** The oldest Kubernetes minor version CI runs the agent against. */
export const MIN_KUBERNETES_MINOR = 27;

/** The label the API server's Pod Security admission enforces. */
export const ENFORCE_LABEL = 'pod-security.kubernetes.io/enforce';

const LEVEL_RANK: Record<string, number> = { privileged: 0, baseline: 1, restricted: 2 };

/** The API reachable and its version supported; resolves the answer too (its Date header). */
export async function kubernetesVersionCheck(
  kube: Kube,
  server: string,
): Promise<{ check: CheckResult; answer?: KubeResponse<unknown> }> {
  const name = 'Kubernetes API reachable';
  let answer: KubeResponse<{ major?: string; minor?: string; gitVersion?: string }>;
  try {
    answer = await kube.request({ method: 'GET', path: '/version' });
  } catch (err) {
    const { code, message } = describeError(kubeError(err, '/version', 'get'));
    return {
      check: result(name, 'fail', `${server}: ${message}`, {
        code,
        fix: 'check --kubeconfig (or the in-cluster account), the API server address and any proxy in HTTPS_PROXY/NO_PROXY',
      }),
    };
  }
  const v = answer.body ?? {};
  const minor = Number.parseInt(v.minor ?? '', 10);
  const version = v.gitVersion ?? `${v.major}.${v.minor}`;
  if (v.major !== '1' || !(minor >= MIN_KUBERNETES_MINOR)) {
    return {
      check: result(
        name,
        'fail',
        `${server} runs ${version}; mooring supports 1.${MIN_KUBERNETES_MINOR} or newer`,
        {
          code: 'MOORING_E_KUBE_REQUEST',
          fix: `upgrade the cluster to Kubernetes 1.${MIN_KUBERNETES_MINOR} or newer`,
        },
      ),
      answer,
    };
  }
  return { check: result(name, 'ok', `${server}, ${version} (1.${MIN_KUBERNETES_MINOR} or newer)`), answer };
}

interface NamespaceObject {
  metadata?: { labels?: Record<string, string> };
}

/** Each namespace exists, and its enforced Pod Security level admits pods of `level`. */
export async function namespaceChecks(
  kube: Kube,
  namespaces: readonly string[],
  level: PodSecurityLevel,
): Promise<CheckResult[]> {
  const out: CheckResult[] = [];
  for (const ns of namespaces) {
    const name = `namespace ${ns}`;
    let labels: Record<string, string>;
    try {
      const res = await kube.request<NamespaceObject>({ method: 'GET', path: `/api/v1/namespaces/${ns}` });
      labels = res.body?.metadata?.labels ?? {};
    } catch (err) {
      const { code, message } = describeError(kubeError(err, `Namespace/${ns}`, 'get'));
      const absent = httpStatusOf(err) === 404;
      out.push(
        result(name, 'fail', absent ? 'does not exist' : message, {
          code,
          fix: absent
            ? `kubectl create namespace ${ns} (or install the chart with createNamespaces: true), or fix --namespaces`
            : `the agent needs get on namespaces/${ns}`,
        }),
      );
      continue;
    }
    const enforced = labels[ENFORCE_LABEL];
    const label = `kubectl label namespace ${ns} ${ENFORCE_LABEL}=${level} --overwrite`;
    if (enforced === undefined) {
      out.push(
        result(name, 'warn', `exists; enforces no Pod Security level (the agent renders ${level} pods)`, {
          fix: `${label} (so the API server enforces what the agent renders)`,
        }),
      );
    } else if ((LEVEL_RANK[enforced] ?? 3) > LEVEL_RANK[level]!) {
      out.push(
        result(
          name,
          'fail',
          `enforces Pod Security ${enforced}, but the agent renders ${level} pods: they would be refused`,
          {
            code: 'MOORING_E_RENDER_POLICY',
            fix: `run the agent with --pod-security ${enforced}, or ${label}`,
          },
        ),
      );
    } else if (enforced !== level) {
      out.push(
        result(name, 'warn', `exists; enforces Pod Security ${enforced}, weaker than the agent's ${level}`, {
          fix: label,
        }),
      );
    } else out.push(result(name, 'ok', `exists; enforces Pod Security ${enforced}`));
  }
  return out;
}

/** A named object read when the agent's account may read it: 'absent', 'present' or 'unknown'. */
async function lookUp(kube: Kube, path: string): Promise<'present' | 'absent' | 'unknown'> {
  try {
    await kube.request({ method: 'GET', path });
    return 'present';
  } catch (err) {
    const status = httpStatusOf(err);
    if (status === 404) return 'absent';
    if (status === 403) return 'unknown';
    throw err;
  }
}

/**
 * The exposure kind served (Ingress is built in; HTTPRoute comes with the Gateway API CRDs) and,
 * where the account may read them, the IngressClass or Gateway the settings name. Resolves whether
 * HTTPRoute is served too (the permissions depend on it).
 */
export async function exposureCheck(
  kube: Kube,
  exposure: ExposureSettings,
): Promise<{ checks: CheckResult[]; httpRouteServed: boolean }> {
  const name = 'exposure';
  const checks: CheckResult[] = [];
  let httpRouteServed = false;
  try {
    httpRouteServed = await servesKind(kube, kindInfo('HTTPRoute')!);
    if (exposure.kind === 'none') {
      checks.push(result(name, 'ok', 'off (no render settings exposure): nothing to check'));
    } else if (exposure.kind === 'ingress') {
      if (!(await servesKind(kube, kindInfo('Ingress')!))) {
        checks.push(
          result(name, 'fail', 'Ingress (networking.k8s.io/v1) is not served', {
            code: 'MOORING_E_EXPOSURE_UNAVAILABLE',
            fix: 'use a cluster that serves networking.k8s.io/v1 Ingress, or set exposure.kind: none',
          }),
        );
      } else if (exposure.ingressClassName) {
        const cls = exposure.ingressClassName;
        // A cluster that does not serve IngressClass (the sandbox) cannot say: not verified.
        const classes = {
          apiVersion: 'networking.k8s.io/v1',
          kind: 'IngressClass',
          plural: 'ingressclasses',
        };
        const found = (await servesKind(kube, { ...classes, namespaced: false, recreatable: true }))
          ? await lookUp(kube, `/apis/networking.k8s.io/v1/ingressclasses/${cls}`)
          : 'unknown';
        checks.push(
          found === 'absent'
            ? result(name, 'fail', `Ingress served, but IngressClass ${cls} does not exist`, {
                code: 'MOORING_E_EXPOSURE_UNAVAILABLE',
                fix: `install the ingress controller of class ${cls}, or fix exposure.ingressClassName`,
              })
            : result(
                name,
                found === 'present' ? 'ok' : 'warn',
                found === 'present'
                  ? `Ingress served; IngressClass ${cls} exists`
                  : `Ingress served; IngressClass ${cls} not verified (IngressClasses not readable here)`,
              ),
        );
      } else checks.push(result(name, 'ok', "Ingress served (the cluster's default class)"));
    } else {
      const gw = exposure.gateway;
      if (!httpRouteServed) {
        checks.push(
          result(name, 'fail', 'HTTPRoute (gateway.networking.k8s.io/v1) is not served', {
            code: 'MOORING_E_EXPOSURE_UNAVAILABLE',
            fix: 'install the Gateway API CRDs (v1) and a Gateway controller, or set exposure.kind: ingress or none',
          }),
        );
      } else {
        const found = await lookUp(
          kube,
          `/apis/gateway.networking.k8s.io/v1/namespaces/${gw.namespace}/gateways/${gw.name}`,
        );
        const id = `Gateway ${gw.namespace}/${gw.name}`;
        checks.push(
          found === 'absent'
            ? result(name, 'fail', `HTTPRoute served, but ${id} does not exist`, {
                code: 'MOORING_E_EXPOSURE_UNAVAILABLE',
                fix: `create ${id}, or fix exposure.gateway`,
              })
            : result(
                name,
                found === 'present' ? 'ok' : 'warn',
                found === 'present'
                  ? `HTTPRoute served; ${id} exists`
                  : `HTTPRoute served; ${id} not verified (no permission to read Gateways)`,
              ),
        );
      }
    }
  } catch (err) {
    const { code, message } = describeError(kubeError(err, 'exposure', 'discover'));
    checks.push(result(name, 'fail', message, { code }));
  }
  return { checks, httpRouteServed };
}
