/**
 * The agent in a locked-down network, with the real programs: a CONNECT proxy in front of the
 * reference control plane (over TLS, with its own CA) and of the sandbox Kubernetes API. Both
 * servers have names only the proxy resolves, so an agent that reached them went through it.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { type ConnectProxy, startConnectProxy } from '../support/connect-proxy.ts';
import { startTlsFront, type TlsFront } from '../support/tls-front.ts';
import { waitFor } from '../support/wait.ts';
import { spawnAgent, type Stack, startStack } from './harness.ts';

const CP_HOST = 'control-plane.mooring.test';
const KUBE_HOST = 'kube.mooring.test';
const PASSWORD = 'agent-pr0xy-pw-77ab';

describe('an agent behind a corporate proxy', { timeout: 60_000 }, () => {
  let stack: Stack;
  let front: TlsFront;
  let proxy: ConnectProxy;
  let caFile: string;
  let proxiedKubeconfig: string;
  let proxyEnv: Record<string, string>;

  beforeAll(async () => {
    stack = await startStack();
    front = await startTlsFront(Number(new URL(stack.cp.url).port), [CP_HOST]);
    proxy = await startConnectProxy({ hosts: { [CP_HOST]: '127.0.0.1', [KUBE_HOST]: '127.0.0.1' } });
    caFile = path.join(stack.dir, 'control-plane-ca.crt');
    writeFileSync(caFile, front.caPem);
    // The sandbox's kubeconfig with the API server named KUBE_HOST (its certificate names localhost).
    const doc = parse(stack.kube.kubeconfig) as { clusters: { cluster: Record<string, unknown> }[] };
    Object.assign(doc.clusters[0]!.cluster, {
      server: `https://${KUBE_HOST}:${new URL(stack.kube.url).port}`,
      'tls-server-name': 'localhost',
    });
    proxiedKubeconfig = path.join(stack.dir, 'kubeconfig-proxied.yaml');
    writeFileSync(proxiedKubeconfig, stringify(doc), { mode: 0o600 });
    proxyEnv = {
      MOORING_CONTROL_PLANE_URL: `https://${CP_HOST}:${front.port}`,
      HTTPS_PROXY: `http://corp-agent:${PASSWORD}@127.0.0.1:${proxy.port}`,
    };
  }, 60_000);

  afterAll(async () => {
    await proxy?.close();
    await front?.close();
    await stack?.close();
  });

  beforeEach(() => {
    proxy.tunnels.length = 0;
    proxy.refuseWith(undefined);
  });

  it('reaches the control plane and the API server only through the proxy, says so, never shows the password', async () => {
    const agent = spawnAgent(
      stack.agentEnv({
        ...proxyEnv,
        MOORING_CONTROL_PLANE_CA_FILE: caFile,
        MOORING_KUBECONFIG: proxiedKubeconfig,
      }),
    );
    try {
      const status = await waitFor(
        'a first poll',
        async () => {
          const doc = await agent.json<{ lastPollAt: string | null; routes?: unknown }>('/status');
          return doc.lastPollAt ? doc : undefined;
        },
        30_000,
      );
      const via = `http://127.0.0.1:${proxy.port}`;
      expect(status.routes).toEqual({
        controlPlane: { via, ca: caFile, clientCertificate: false },
        kubernetes: { via },
      });
      expect(new Set(proxy.tunnels)).toEqual(
        new Set([`${CP_HOST}:${front.port}`, `${KUBE_HOST}:${new URL(stack.kube.url).port}`]),
      );
      expect(agent.stdout()).toContain(
        `control plane to be reached through the proxy ${via} (CA: ${caFile}); Kubernetes API through the proxy ${via}`,
      );
      const everything = `${agent.stdout()}${agent.stderr()}${JSON.stringify(status)}${await agent.text('/metrics')}`;
      expect(everything).not.toContain(PASSWORD);
      expect(everything).not.toContain('corp-agent');
    } finally {
      await agent.stop();
    }
  });

  it('goes direct to a control plane that matches NO_PROXY (which only the proxy could resolve)', async () => {
    const agent = spawnAgent(
      stack.agentEnv({
        ...proxyEnv,
        NO_PROXY: `10.0.0.0/8,.mooring.test:${front.port}`,
        MOORING_CONTROL_PLANE_CA_FILE: caFile,
      }),
    );
    try {
      // The agent resolved the name itself, and failed: it did not ask the proxy.
      await waitFor(
        'a direct attempt',
        () => /"code":"MOORING_E_CP_UNREACHABLE"[^\n]*ENOTFOUND/.test(agent.stdout()),
        30_000,
      );
      expect(proxy.tunnels).toEqual([]);
    } finally {
      await agent.stop();
    }
  });

  it('stops with MOORING_E_PROXY_REFUSED, explained, when the proxy refuses the tunnel', async () => {
    proxy.refuseWith(403);
    const agent = spawnAgent(stack.agentEnv({ ...proxyEnv, MOORING_CONTROL_PLANE_CA_FILE: caFile }));
    const exit = await agent.exited;
    expect(exit.code).toBe(1);
    expect(agent.stderr()).toMatch(
      new RegExp(
        `^mooring run: MOORING_E_PROXY_REFUSED: GET /v2/listeners: the proxy http://127\\.0\\.0\\.1:${proxy.port} refused the tunnel \\(HTTP 403\\): its policy does not allow this destination`,
        'm',
      ),
    );
    expect(`${agent.stdout()}${agent.stderr()}`).not.toContain(PASSWORD);
  });

  it('refuses an untrusted control-plane certificate, naming --control-plane-ca-file', async () => {
    const agent = spawnAgent(stack.agentEnv(proxyEnv));
    const exit = await agent.exited;
    expect(exit.code).toBe(1);
    expect(agent.stderr()).toMatch(
      /^mooring run: MOORING_E_CP_TLS_UNTRUSTED: GET \/v2\/listeners: the control plane's certificate is not trusted \(\w+\); give its CA with --control-plane-ca-file/m,
    );
    expect(proxy.tunnels).toContain(`${CP_HOST}:${front.port}`);
  });
});
