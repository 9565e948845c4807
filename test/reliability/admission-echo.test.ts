/**
 * Secret values never leave the agent, whatever the API server says back: an HTTPS proxy in front
 * of the sandbox refuses the writes of two deployments' env Secrets the way admission webhooks do,
 * quoting the deployment's own secret value (a canary) in the refusal:
 * - a 403 as Gatekeeper words it (`admission webhook "..." denied the request: env value "<value>"
 *   is not allowed`): terminal, the deployment is Refused;
 * - a 409 whose message quotes the value under no phrase the agent knows (so only the redactor
 *   stands between it and the output), the value holding a quote and a backslash so that it is
 *   JSON-escaped inside a log line: retried, the deployment is Retrying and logs at every attempt.
 * The agent runs as a child process at log level `trace`; the canaries (as text, JSON-escaped and
 * base64) must appear in none of its log lines at any level, nor in `/status` (reasons included),
 * nor in the Events it wrote, nor in `/metrics`. Before the redactor, the API server's text of a
 * 403 or 409 went into the error's message, and from there into error-level log lines and
 * `/status` reasons.
 */
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kubeGet } from './lib/cluster-check.ts';
import { type EchoProxy, startEchoProxy } from './lib/echo-proxy.ts';
import { type Stack, spawnAgent, startStack } from './lib/stack.ts';
import { AgentLogs } from '../support/agent-logs.ts';
import { smallDeployment } from '../support/deployment-body.ts';
import type { AgentProcess, StatusEntry } from '../support/agent-process.ts';
import { sleep, waitFor } from '../support/wait.ts';

const NS = 'redact-apps';
const canaryDenied = `canary-${randomUUID()}`;
/** Holds a quote and a backslash: inside a JSON log line it appears escaped, never as written. */
const canaryConflict = `canary-${randomUUID()}-"quoted"-\\back`;
const escaped = (s: string) => JSON.stringify(s).slice(1, -1);
/** Every form in which a canary would be a leak. */
const CANARY_FORMS = [canaryDenied, canaryConflict].flatMap((c) => [
  c,
  escaped(c),
  escaped(escaped(c)),
  Buffer.from(c).toString('base64'),
]);

const GATEKEEPER = 'validation.gatekeeper.sh';

function body(name: string, listenerId: string, value: string) {
  return {
    ...smallDeployment(name, listenerId, NS),
    source_revision_config: { image_uri: `registry.example.com/redact/${name}:1.0.0` },
    secrets: [
      { name: 'APP_TOKEN', value },
      { name: 'APP_MODE', value: 'plain' },
    ],
  };
}

describe('an admission webhook that quotes a secret value: no canary in the log, /status or Events', () => {
  let stack: Stack;
  let proxy: EchoProxy;
  let agent: AgentProcess;
  const logs = new AgentLogs();
  let statusByName: Map<string, StatusEntry>;

  beforeAll(async () => {
    stack = await startStack({ namespaces: [NS] });
    proxy = await startEchoProxy(stack.kube, [
      {
        namespace: NS,
        name: 'adm-denied-env',
        refuse: () => ({
          code: 403,
          reason: 'Forbidden',
          message: `admission webhook "${GATEKEEPER}" denied the request: [env-values] env value "${canaryDenied}" is not allowed`,
        }),
      },
      {
        namespace: NS,
        name: 'adm-conflict-env',
        refuse: () => ({
          code: 409,
          reason: 'Conflict',
          message: `Operation cannot be fulfilled on secrets "adm-conflict-env": APP_TOKEN "${canaryConflict}" is held by another writer`,
        }),
      },
    ]);
    const proxyKubeconfig = path.join(stack.dir, 'proxy.kubeconfig');
    writeFileSync(proxyKubeconfig, proxy.kubeconfig, { mode: 0o600 });
    for (const [name, value] of [
      ['adm-denied', canaryDenied],
      ['adm-conflict', canaryConflict],
    ] as const) {
      await stack.client.createDeployment(body(name, stack.listenerId, value));
    }
    agent = spawnAgent(
      stack.agentEnv({ MOORING_KUBECONFIG: proxyKubeconfig, MOORING_LOG_LEVEL: 'trace' }),
      logs,
    );
    statusByName = await waitFor(
      'both deployments refused by the proxy, as /status shows',
      async () => {
        const doc = await agent.json<{ deployments: StatusEntry[] }>('/status');
        const m = new Map(doc.deployments.map((d) => [d.name, d]));
        return m.get('adm-denied')?.state === 'Refused' &&
          m.get('adm-conflict')?.state === 'Retrying' &&
          proxy.echoed() >= 3
          ? m
          : undefined;
      },
      60_000,
    );
    // A few more retries of the 409, their log lines and Events with them.
    await sleep(3000);
    await waitFor(
      'the agent to write its queued Events',
      async () => {
        const events = (await kubeGet(stack.kube, `/api/v1/namespaces/${NS}/events`)) as {
          items?: unknown[];
        };
        return (events.items?.length ?? 0) > 0 ? true : undefined;
      },
      10_000,
    );
  }, 90_000);

  afterAll(async () => {
    await agent?.stop();
    await proxy?.close();
    await stack?.close();
  });

  it('the refusals did quote the canaries to the agent (so their absence means something)', () => {
    const quoted = proxy.echoedBodies().join('\n');
    expect(quoted).toContain(canaryDenied);
    expect(quoted).toContain(canaryConflict);
  });

  it('no canary in any log line, at any level (trace), stdout and stderr', () => {
    const text = logs.all();
    const levels = new Set(logs.lines().map((l) => l.level));
    for (const level of ['debug', 'info', 'error', 'warn']) expect(levels, level).toContain(level);
    expect(text).toContain('MOORING_E_KUBE_FORBIDDEN');
    expect(text).toContain('MOORING_E_KUBE_CONFLICT');
    // Who refused survives; what the webhook quoted does not.
    expect(text).toContain(`admission webhook \\"${GATEKEEPER}\\" denied the request`);
    expect(text).toContain('is held by another writer');
    for (const form of CANARY_FORMS) expect(text).not.toContain(form);
    expect(text).not.toContain(stack.apiKey);
  });

  it('no canary in /status: each reason names the code and the refusal, the value redacted', async () => {
    const denied = statusByName.get('adm-denied')?.reason ?? '';
    const conflict = statusByName.get('adm-conflict')?.reason ?? '';
    expect(denied).toMatch(
      /^MOORING_E_KUBE_FORBIDDEN: Secret\/redact-apps\/adm-denied-env: (apply|create) refused \(403\)/,
    );
    expect(denied).toContain(`admission webhook "${GATEKEEPER}" denied the request`);
    expect(conflict).toMatch(
      /^MOORING_E_KUBE_CONFLICT: Secret\/redact-apps\/adm-conflict-env: apply conflict \(409/,
    );
    expect(conflict).toContain('APP_TOKEN "[redacted]" is held by another writer');
    const status = await agent.text('/status');
    for (const form of CANARY_FORMS) expect(status).not.toContain(form);
  });

  it('no canary in the Events the agent wrote, nor in /metrics', async () => {
    const events = JSON.stringify(await kubeGet(stack.kube, `/api/v1/namespaces/${NS}/events`));
    expect(events).toContain('ApplyFailed');
    expect(events).toContain('MOORING_E_KUBE_CONFLICT');
    const metrics = await agent.text('/metrics');
    expect(metrics).toContain('mooring_reconciles_total');
    for (const text of [events, metrics]) {
      for (const form of CANARY_FORMS) expect(text).not.toContain(form);
    }
  });
});
