/**
 * The control-plane half of `mooring check`, through the same route the agent takes (its proxy
 * settings, CA and client certificate): reachable, the API key accepted, the listener there and a
 * `k8s` one, and its namespaces among the agent's. Nothing is written.
 */
import { describeError } from '../agent/safe-error.ts';
import { findListener } from '../agent/registration.ts';
import type { ControlPlaneClient } from '../control-plane/client.ts';
import type { Answer, Transport } from '../control-plane/client-http.ts';
import { type CheckResult, result } from './result.ts';

export interface ControlPlaneCheckInput {
  /** The base URL, as the checklist names it. */
  url: string;
  listenerId: string;
  namespaces: readonly string[];
}

/** What the control-plane checks found; `answer` (for its Date header) when it answered. */
export interface ControlPlaneChecks {
  checks: CheckResult[];
  answer?: Answer;
}

/** Runs the checks; see the module comment. */
export async function controlPlaneChecks(
  transport: Pick<Transport, 'exchange'>,
  client: Pick<ControlPlaneClient, 'listListeners'>,
  input: ControlPlaneCheckInput,
): Promise<ControlPlaneChecks> {
  const reach = 'control plane reachable';
  const key = 'API key accepted';
  const listener = `listener ${input.listenerId}`;
  let answer: Answer;
  try {
    answer = await transport.exchange({
      method: 'GET',
      route: '/v2/listeners',
      path: '/v2/listeners',
      query: { limit: '1' },
      ok: [200],
    });
  } catch (err) {
    const { code, message } = describeError(err);
    if (code === 'MOORING_E_CP_UNAUTHORIZED') {
      return {
        checks: [
          result(reach, 'ok', input.url),
          result(key, 'fail', message, {
            code,
            fix: 'check --api-key-file (MOORING_API_KEY_FILE): the key was refused',
          }),
        ],
      };
    }
    return {
      checks: [
        result(reach, 'fail', `control plane ${input.url}: ${message}`, {
          code,
          fix:
            code === 'MOORING_E_CP_TLS_UNTRUSTED'
              ? "--control-plane-ca-file must hold the CA that signs its certificate (a TLS-inspecting proxy's included)"
              : 'check --control-plane-url, and HTTPS_PROXY/NO_PROXY when a proxy stands between',
        }),
      ],
    };
  }
  const checks = [result(reach, 'ok', input.url), result(key, 'ok', 'the control plane answered with it')];
  try {
    const record = await findListener(client, input.listenerId);
    const theirs = record?.compute_config?.k8s_namespaces ?? [];
    const outside = theirs.filter((ns) => !input.namespaces.includes(ns));
    checks.push(result(listener, 'ok', 'exists, compute_type k8s'));
    const name = 'listener namespaces';
    if (outside.length > 0) {
      checks.push(
        result(
          name,
          'fail',
          `the listener has ${outside.join(', ')}, not among --namespaces (${input.namespaces.join(', ')})`,
          {
            code: 'MOORING_E_NAMESPACE_NOT_ALLOWED',
            fix: `add ${outside.join(', ')} to --namespaces, or the agent refuses deployments there`,
          },
        ),
      );
    } else {
      checks.push(
        result(
          name,
          'ok',
          theirs.length > 0
            ? `${theirs.join(', ')}: all among --namespaces`
            : 'none set yet (the agent reports its own)',
        ),
      );
    }
  } catch (err) {
    const { code, message } = describeError(err);
    checks.push(
      result(listener, 'fail', message, {
        code,
        fix: 'check --listener-id, or create the listener (POST /v2/listeners, compute_type k8s)',
      }),
    );
  }
  return { checks, answer };
}
