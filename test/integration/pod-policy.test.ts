/**
 * Record-controlled pod metadata, volume sources and secret values against a real agent
 * (reference control plane, sandbox Kubernetes API, agent process, kubectl), at both Pod Security
 * levels: a mesh injector's annotation and an inline CSI volume of a driver the operator did not
 * allow are refused alone, nothing of them written; a record whose "secrets" are the log's
 * structure and the agent's own words (`"level":"error"`, error codes, state names) does not blind
 * the others: every log line stays JSON with its level and code, and `/status` keeps their states.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ResourceSpecRecord } from '../../src/contract/index.ts';
import { DEPLOYMENT_STATES } from '../../src/agent/status.ts';
import { ControlPlaneClient } from '../../src/control-plane/client.ts';
import { type AgentProcess, spawnAgent } from '../support/agent-process.ts';
import { BLINDING_VALUES } from '../support/blinding-values.ts';
import { createSmallDeployment } from '../support/deployment-body.ts';
import { agentEnv, type Servers, startServers } from '../support/stack.ts';
import { waitFor } from '../support/wait.ts';
import { deploymentState, kubectlOf } from './harness.ts';

const NS = 'team';

describe.each(['baseline', 'restricted'] as const)(
  'pod policy end to end at %s',
  { timeout: 60_000 },
  (podSecurity) => {
    let servers: Servers;
    let client: ControlPlaneClient;
    let agent: AgentProcess;
    const ids: Record<string, string> = {};

    const owned = async (id: string) =>
      (
        await kubectlOf(servers)([
          'get',
          'deploy,sts,svc,secret,hpa,pdb,networkpolicy',
          '-n',
          NS,
          '-l',
          `mooring.dev/deployment-id=${id}`,
          '-o',
          'name',
        ])
      )
        .trim()
        .split('\n')
        .filter((l) => l !== '');

    const create = (
      name: string,
      spec: ResourceSpecRecord = {},
      secrets: { name: string; value: string }[] = [],
    ) =>
      createSmallDeployment(
        client,
        { name, listenerId: servers.listenerId, namespace: NS },
        { spec, secrets },
      );

    beforeAll(async () => {
      servers = await startServers({ namespaces: [NS], tmpPrefix: 'mooring-it-', rolloutDelayMs: 300 });
      client = new ControlPlaneClient({ baseUrl: servers.cp.url, apiKey: servers.apiKey, retries: 0 });
      ids.blinder = await create(
        'blinder',
        {},
        BLINDING_VALUES.map((value, i) => ({ name: `BLIND_${i}`, value })),
      );
      ids.mesh = await create('mesh', {
        annotations: { 'sidecar.istio.io/proxyImage': 'registry.example/evil-proxy:1' },
      });
      ids.csi = await create('csi', {
        volumes: [
          {
            name: 'stolen',
            csi: { driver: 'secrets-store.csi.k8s.io', volumeAttributes: { secretProviderClass: 'billing' } },
          },
        ],
      });
      ids.plain = await create('plain');
      // Refused for a reason older than the rules above: the blinding check does not depend on them.
      ids.host = await create('host', { volumes: [{ name: 'root', hostPath: { path: '/' } }] });
      agent = spawnAgent(agentEnv(servers, { MOORING_POD_SECURITY: podSecurity }), { stopGraceMs: 0 });
    }, 60_000);

    afterAll(async () => {
      await agent?.stop();
      await client?.close();
      await servers?.close();
    });

    it.each([
      ['mesh', 'MOORING_E_RENDER_POLICY: annotation "sidecar.istio.io/proxyImage"'],
      ['csi', 'MOORING_E_RENDER_POLICY: csi volume "stolen" uses the CSI driver "secrets-store.csi.k8s.io"'],
    ])('refuses the %s record, says why in /status, and writes nothing of it', async (key, reason) => {
      const id = ids[key]!;
      await waitFor(
        `${key} Refused`,
        async () => (await deploymentState(agent, id))?.state === 'Refused',
        30_000,
      );
      expect((await deploymentState(agent, id))?.reason).toContain(reason);
      expect(await owned(id)).toEqual([]);
    });

    it('the blinding record runs; the others keep their log lines, levels, codes and states', async () => {
      for (const key of ['blinder', 'plain']) {
        await waitFor(
          `${key} Ready`,
          async () => (await deploymentState(agent, ids[key]!))?.state === 'Ready',
          30_000,
        );
      }
      // Any verdict: a blinded one reads "[redacted]" and must fail below, not time out here.
      await waitFor(
        'host judged',
        async () => ((await deploymentState(agent, ids.host!))?.reason ?? null) !== null,
        20_000,
      );
      const lines = agent
        .stdout()
        .split('\n')
        .filter((l) => l.trim() !== '');
      expect(lines.length).toBeGreaterThan(10);
      const parsed = lines.map((l) => {
        try {
          return JSON.parse(l) as Record<string, unknown>;
        } catch {
          throw new Error(`not JSON: ${l}`);
        }
      });
      for (const p of parsed) expect(['trace', 'debug', 'info', 'warn', 'error', 'fatal']).toContain(p.level);
      const refusal = parsed.find((p) => p.deploymentId === ids.host && p.level === 'error');
      expect(refusal).toMatchObject({ code: 'MOORING_E_RENDER_POLICY' });
      const states = parsed.filter((p) => p.state !== undefined).map((p) => p.state);
      expect(states.length).toBeGreaterThan(0);
      for (const state of states) expect(DEPLOYMENT_STATES).toContain(state);
      const status = await agent.json<{
        deployments: { id: string; state: string; reason: string | null }[];
      }>('/status');
      expect(status.deployments.find((d) => d.id === ids.host)).toMatchObject({ state: 'Refused' });
      expect(status.deployments.find((d) => d.id === ids.host)?.reason).toMatch(/^MOORING_E_RENDER_POLICY: /);
      expect(status.deployments.find((d) => d.id === ids.plain)?.state).toBe('Ready');
    });
  },
);
