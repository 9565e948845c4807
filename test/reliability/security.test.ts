/**
 * Security, end to end with the agent as a child process (debug logging, the most it ever says):
 * - a deployment aimed at a namespace outside the agent's allowlist is refused with
 *   MOORING_E_NAMESPACE_NOT_ALLOWED and nothing is written for it;
 * - hostPath volumes and privileged containers are refused with MOORING_E_RENDER_POLICY, nothing
 *   written;
 * - secret canaries (unique random values in deployment secrets) appear nowhere in the agent's
 *   stdout/stderr, the Events, /metrics, /status or error text, including when the API server
 *   answers 422 with the Secret's content quoted back (a proxy in front of the sandbox does that);
 * - the API key appears in no log line, also when it is wrong and the control plane refuses it;
 * - the chart's pod runs as non-root with a read-only root filesystem (helm template).
 */
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ciValueSets, type KubeObject, only, template } from '../chart/helm.ts';
import { kubeGet, USER_AGENT } from './lib/cluster-check.ts';
import { type EchoProxy, startEchoProxy } from './lib/echo-proxy.ts';
import { type Stack, spawnAgent, startStack } from './lib/stack.ts';
import { AgentLogs } from '../support/agent-logs.ts';
import type { AgentProcess, StatusEntry } from '../support/agent-process.ts';
import { sleep, waitFor } from '../support/wait.ts';

const NS = 'sec-apps';
const OUTSIDE = 'kube-system';
const canaryOk = `canary-${randomUUID()}`;
const canaryEcho = `canary-${randomUUID()}`;
const canaryRefused = `canary-${randomUUID()}`;
/** Each canary as text and as the base64 a Secret's `data` would carry: both are leaks. */
const CANARY_FORMS = [canaryOk, canaryEcho, canaryRefused].flatMap((c) => [
  c,
  Buffer.from(c).toString('base64'),
]);
const b64 = (s: string) => Buffer.from(s).toString('base64');

function body(
  name: string,
  namespace: string,
  extra: { secrets?: { name: string; value: string }[]; spec?: object },
) {
  return {
    name,
    source: 'external_docker' as const,
    source_config: {
      listener_id: '',
      listener_config: { k8s_namespace: namespace },
      resource_spec: { min_scale: 1, max_scale: 1, cpu: 0.25, memory_mb: 128, ...extra.spec },
    },
    source_revision_config: { image_uri: `registry.example.com/sec/${name}:1.0.0` },
    secrets: extra.secrets ?? [],
  };
}

describe('security: allowlist, policy, secret canaries, API key, hardened pod', () => {
  let stack: Stack;
  let proxy: EchoProxy;
  let agent: AgentProcess;
  const logs = new AgentLogs();
  const ids: Record<string, string> = {};
  let statusByName: Map<string, StatusEntry>;

  beforeAll(async () => {
    stack = await startStack({ namespaces: [NS] });
    proxy = await startEchoProxy(stack.kube, { namespace: NS, name: 'sec-echo-env' });
    const proxyKubeconfig = path.join(stack.dir, 'proxy.kubeconfig');
    writeFileSync(proxyKubeconfig, proxy.kubeconfig, { mode: 0o600 });
    const create = async (name: string, namespace: string, extra: Parameters<typeof body>[2]) => {
      const b = body(name, namespace, extra);
      b.source_config.listener_id = stack.listenerId;
      ids[name] = (await stack.client.createDeployment(b)).id;
    };
    await create('sec-ok', NS, { secrets: [{ name: 'APP_SECRET', value: canaryOk }] });
    await create('sec-echo', NS, { secrets: [{ name: 'APP_SECRET', value: canaryEcho }] });
    await create('sec-outside', OUTSIDE, { secrets: [{ name: 'APP_SECRET', value: canaryRefused }] });
    await create('sec-hostpath', NS, {
      secrets: [{ name: 'APP_SECRET', value: canaryRefused }],
      spec: {
        volumes: [{ name: 'host', hostPath: { path: '/var/run' } }],
        volume_mounts: [{ name: 'host', mountPath: '/host' }],
      },
    });
    await create('sec-privileged', NS, {
      secrets: [{ name: 'APP_SECRET', value: canaryRefused }],
      spec: {
        sidecars: [
          {
            name: 'debug',
            image: 'registry.example.com/sec/debug:1.0.0',
            securityContext: { privileged: true },
          },
        ],
      },
    });
    agent = spawnAgent(
      stack.agentEnv({ MOORING_KUBECONFIG: proxyKubeconfig, MOORING_LOG_LEVEL: 'debug' }),
      logs,
    );
    statusByName = await waitFor(
      'every deployment settled in /status',
      async () => {
        const doc = await agent.json<{ deployments: StatusEntry[] }>('/status');
        const m = new Map(doc.deployments.map((d) => [d.name, d]));
        const settled = (n: string, states: string[]) => states.includes(m.get(n)?.state ?? '');
        return settled('sec-ok', ['Ready']) &&
          settled('sec-echo', ['Refused', 'Retrying']) &&
          settled('sec-outside', ['Refused']) &&
          settled('sec-hostpath', ['Refused']) &&
          settled('sec-privileged', ['Refused']) &&
          proxy.echoed() > 0
          ? m
          : undefined;
      },
      60_000,
    );
    // A few more cycles, so retries of the echoed 422 (and their log lines) happen too.
    await sleep(3000);
  }, 90_000);

  afterAll(async () => {
    await agent?.stop();
    await proxy?.close();
    await stack?.close();
  });

  const writesFor = (prefix: string) =>
    stack.kube
      .requests()
      .filter((r) => r.write && r.userAgent !== USER_AGENT && r.resource !== 'events')
      .filter((r) => (r.name ?? '').startsWith(prefix));

  it('refuses a namespace outside the allowlist with MOORING_E_NAMESPACE_NOT_ALLOWED and writes nothing there', () => {
    const s = statusByName.get('sec-outside');
    expect(s?.state).toBe('Refused');
    expect(s?.reason).toMatch(/^MOORING_E_NAMESPACE_NOT_ALLOWED/);
    // Not one write of any kind (Events included) reaches the namespace, nor any object of it.
    expect(stack.kube.requests({ namespace: OUTSIDE }).filter((r) => r.write)).toEqual([]);
    expect(writesFor('sec-outside')).toEqual([]);
    expect(stack.kube.getObject('apps/v1', 'Deployment', OUTSIDE, 'sec-outside')).toBeUndefined();
  });

  it.each(['sec-hostpath', 'sec-privileged'])(
    'refuses %s with MOORING_E_RENDER_POLICY and writes nothing',
    (name) => {
      const s = statusByName.get(name);
      expect(s?.state).toBe('Refused');
      expect(s?.reason).toMatch(/^MOORING_E_RENDER_POLICY/);
      expect(writesFor(name)).toEqual([]);
      expect(stack.kube.getObject('apps/v1', 'Deployment', NS, name)).toBeUndefined();
      expect(stack.kube.getObject('v1', 'Secret', NS, `${name}-env`)).toBeUndefined();
    },
  );

  /** The Postgres password the agent generated for sec-ok (a secret nobody gave it). */
  const generatedPassword = () => {
    const creds = stack.kube.getObject('v1', 'Secret', NS, 'sec-ok-postgres-credentials') as
      | { data?: Record<string, string> }
      | undefined;
    return Buffer.from(creds?.data?.POSTGRES_PASSWORD ?? '', 'base64').toString('utf8');
  };

  it('the generated Postgres password appears in no log line, Event, /metrics or /status', async () => {
    const password = generatedPassword();
    expect(password.length).toBeGreaterThanOrEqual(16);
    const events = JSON.stringify(await kubeGet(stack.kube, `/api/v1/namespaces/${NS}/events`));
    const texts = [logs.all(), events, await agent.text('/metrics'), await agent.text('/status')];
    for (const text of texts) {
      expect(text).not.toContain(password);
      expect(text).not.toContain(b64(password));
    }
  });

  it('the canaries did reach the places a leak would come from (so their absence means something)', () => {
    const secret = stack.kube.getObject('v1', 'Secret', NS, 'sec-ok-env') as {
      data?: Record<string, string>;
    };
    expect(Buffer.from(secret.data?.APP_SECRET ?? '', 'base64').toString('utf8')).toBe(canaryOk);
    expect(proxy.echoedBodies().some((b) => b.includes(canaryEcho) || b.includes(b64(canaryEcho)))).toBe(
      true,
    );
    expect(statusByName.get('sec-echo')?.reason).toMatch(/^MOORING_E_KUBE_INVALID/);
  });

  it('no canary in the agent log (stdout and stderr), at debug level, including the 422 that echoed one', () => {
    const text = logs.all();
    expect(text.length).toBeGreaterThan(1000);
    expect(text).toContain('MOORING_E_KUBE_INVALID');
    for (const canary of CANARY_FORMS) expect(text).not.toContain(canary);
  });

  it('no canary in Events, /metrics or /status (error text included)', async () => {
    const events = JSON.stringify([
      await kubeGet(stack.kube, `/api/v1/namespaces/${NS}/events`),
      await kubeGet(stack.kube, `/api/v1/namespaces/${OUTSIDE}/events`),
      await kubeGet(stack.kube, '/api/v1/namespaces/default/events'),
    ]);
    const metrics = await agent.text('/metrics');
    const status = await agent.text('/status');
    expect(events).toContain('sec-');
    expect(metrics).toContain('mooring_reconciles_total');
    expect(status).toContain('MOORING_E_KUBE_INVALID');
    for (const text of [events, metrics, status]) {
      for (const canary of CANARY_FORMS) expect(text).not.toContain(canary);
    }
  });

  it('the API key appears in no log line, /status or /metrics', async () => {
    expect(logs.all()).not.toContain(stack.apiKey);
    expect(await agent.text('/status')).not.toContain(stack.apiKey);
    expect(await agent.text('/metrics')).not.toContain(stack.apiKey);
  });

  it('a wrong API key, refused by the control plane, is not logged either', async () => {
    const wrongKey = `key-${randomUUID()}`;
    const wrongLogs = new AgentLogs();
    const env = stack.agentEnv({ MOORING_API_KEY: wrongKey, MOORING_LOG_LEVEL: 'debug' });
    delete env.MOORING_API_KEY_FILE;
    const wrong = spawnAgent(env, wrongLogs);
    // It either gives up (a refused key is terminal) or retries; SIGTERM then flushes its log.
    await Promise.race([wrong.exited, sleep(5000)]);
    await wrong.stop();
    expect(wrongLogs.all()).toMatch(/MOORING_E_CP_/);
    expect(wrongLogs.all()).not.toContain(wrongKey);
  });
});

describe('the chart runs the agent as non-root with a read-only root filesystem (helm template)', () => {
  // The chart's value sets of ci/ (the `default` set is the chart's defaults plus the required values).
  const sets = [...ciValueSets()].map(([n, f]): [string, string[]] => [n, [f]]);
  it.each(sets)('%s values', (name, files) => {
    const objects: KubeObject[] = template(files);
    // biome-ignore lint/suspicious/noExplicitAny: reading a rendered manifest
    const pod = (only(objects, 'Deployment').spec as any).template.spec;
    expect(pod.securityContext.runAsNonRoot).toBe(true);
    // OpenShift's restricted SCC assigns the uid itself: that set leaves it out, every other fixes one.
    if (name === 'openshift') expect(pod.securityContext.runAsUser).toBeUndefined();
    else expect(pod.securityContext.runAsUser).toBeGreaterThan(0);
    expect(pod.hostNetwork ?? false).toBe(false);
    for (const c of [...pod.containers, ...(pod.initContainers ?? [])]) {
      expect(c.securityContext.readOnlyRootFilesystem).toBe(true);
      expect(c.securityContext.allowPrivilegeEscalation).toBe(false);
      expect(c.securityContext.privileged ?? false).toBe(false);
      expect(c.securityContext.runAsUser ?? pod.securityContext.runAsUser).not.toBe(0);
    }
  });
});
