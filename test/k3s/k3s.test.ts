/**
 * The real-cluster suite: k3s in a container (testcontainers), the image the Dockerfile builds
 * loaded into it, the reference control plane running from that image, and the agent installed
 * with the Helm chart exactly as an operator would (its RBAC, read-only root, non-root user,
 * probes). It re-proves on a real API server what the integration suite proves on the sandbox:
 * convergence of several deployments (every ResourceSpec group, an HPA, bundled Postgres), zero
 * writes over idle cycles (counted by the API server's audit log), drift repair that keeps another
 * manager's field, AWAITING_DELETE removal, and no request refused under the chart's RBAC.
 *
 * Needs a container engine (Docker or Podman socket), the docker CLI (to build and save the image)
 * and network access for images. Where there is no engine, the suite is skipped with one line
 * saying so. MOORING_K3S_IMAGE changes the k3s image.
 */
import { type ChildProcess, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { StartedK3sContainer } from '@testcontainers/k3s';
import { getContainerRuntimeClient } from 'testcontainers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { toolPath } from '../../scripts/install-tools.ts';
import { repoRoot } from '../../scripts/render-deploy.ts';
import type { ControlPlaneClient } from '../../src/control-plane/client.ts';
import { sleep, waitFor } from '../support/wait.ts';
import {
  auditedRequests,
  buildAndLoadImage,
  describeRequests,
  kubectl,
  mustKubectl,
  portForward,
  startAuditedK3s,
  tokenKubeconfig,
  writesOf,
} from './cluster.ts';
import {
  APPS,
  controlPlaneManifest,
  deploymentBody,
  EVERY_GROUP,
  IMAGE,
  PLAIN,
  RELEASE_NAMESPACE,
  suiteValues,
} from './fixtures.ts';

const K3S_IMAGE = process.env.MOORING_K3S_IMAGE ?? 'rancher/k3s:v1.34.1-k3s1';
const AGENT_USER = `system:serviceaccount:${RELEASE_NAMESPACE}:mooring`;
const IDLE_CYCLES = 5;

// getContainerRuntimeClient rejects within milliseconds when no engine answers.
const noEngine = await getContainerRuntimeClient().then(
  () => undefined,
  (err: Error) => err.message,
);
if (noEngine) console.log(`k3s suite skipped: no container engine on this machine (${noEngine})`);

interface Workload {
  metadata: { annotations?: Record<string, string>; managedFields?: Array<{ manager: string }> };
  spec: { replicas?: number; template: { spec: { containers: Array<{ name: string; image: string }> } } };
}

interface AgentPod {
  spec: {
    securityContext?: { runAsNonRoot?: boolean };
    containers: Array<{
      image: string;
      securityContext?: { readOnlyRootFilesystem?: boolean; runAsNonRoot?: boolean };
    }>;
  };
  status: {
    conditions: Array<{ type: string; status: string }>;
    containerStatuses: Array<{ restartCount: number }>;
  };
}

describe.skipIf(noEngine !== undefined)(
  'the agent image on a real cluster (k3s), installed by the chart',
  () => {
    let k3s: StartedK3sContainer | undefined;
    let forward: ChildProcess | undefined;
    let client: ControlPlaneClient | undefined;
    let work = '';
    let admin = '';
    let agentConfig = '';
    const ids: Record<string, string> = {};
    const secrets = { groups: 'k3s-canary-groups', plain: 'k3s-canary-plain', doomed: 'k3s-canary-doomed' };

    const adminKubectl = (args: string[], input?: string) => mustKubectl(admin, work, args, input);
    const getJson = <T>(args: string[]) => JSON.parse(adminKubectl([...args, '-o', 'json'])) as T;
    const deployment = (name: string) => getJson<Workload>(['get', 'deployment', name, '-n', APPS]);
    const agentLogs = () =>
      kubectl(admin, work, ['logs', '-n', RELEASE_NAMESPACE, 'deployment/mooring']).stdout;

    /** Waits until the agent made no write for four poll intervals; fails listing the writes if never. */
    async function settled(timeoutMs: number): Promise<void> {
      // Four cycles: an Event about a workload's health can follow its change by a cycle or two.
      const quiet = 4 * suiteValues.pollIntervalSeconds * 1000;
      let last = -1;
      let since = Date.now();
      await waitFor(
        'the agent to stop writing (a perpetual diff never does)',
        async () => {
          const count = writesOf(await auditedRequests(k3s!)).length;
          if (count !== last) [last, since] = [count, Date.now()];
          return Date.now() - since >= quiet;
        },
        timeoutMs,
        1000,
      ).catch(async (err: Error) => {
        const writes = writesOf(await auditedRequests(k3s!)).slice(-40);
        throw new Error(`${err.message}\nlast writes:\n${describeRequests(writes)}`);
      });
    }

    beforeAll(async () => {
      work = mkdtempSync(path.join(tmpdir(), 'mooring-k3s-'));
      k3s = await startAuditedK3s(K3S_IMAGE, AGENT_USER);
      admin = path.join(work, 'admin.kubeconfig');
      writeFileSync(admin, k3s.getKubeConfig());

      // 1. The image the Dockerfile builds, in k3s's containerd (the chart runs it with pullPolicy Never).
      const version = (
        JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as { version: string }
      ).version;
      await buildAndLoadImage(k3s, repoRoot, IMAGE, version, work);

      // 2. The reference control plane from the same image, as the CI chart job deploys it.
      for (const ns of [RELEASE_NAMESPACE, APPS]) adminKubectl(['create', 'namespace', ns]);
      adminKubectl(['label', 'namespace', APPS, 'pod-security.kubernetes.io/enforce=baseline']);
      const cp = controlPlaneManifest();
      adminKubectl(['apply', '-f', '-'], cp.yaml);
      adminKubectl([
        'rollout',
        'status',
        '-n',
        RELEASE_NAMESPACE,
        'deployment/mooring-control-plane',
        '--timeout=180s',
      ]);
      const forwarded = await portForward(admin, work, RELEASE_NAMESPACE, 'svc/mooring-control-plane', 8080);
      forward = forwarded.process;
      const { ControlPlaneClient } = await import('../../src/control-plane/client.ts');
      client = new ControlPlaneClient({ baseUrl: forwarded.url, apiKey: cp.apiKey, retries: 2 });

      // 3. Several deployments, then the agent, installed by the chart; --wait needs its pod Ready.
      ids.groups = (await client.createDeployment(deploymentBody('groups', EVERY_GROUP, secrets.groups))).id;
      ids.plain = (await client.createDeployment(deploymentBody('plain', PLAIN, secrets.plain))).id;
      ids.doomed = (await client.createDeployment(deploymentBody('doomed', PLAIN, secrets.doomed))).id;
      const valuesFile = path.join(work, 'suite-values.yaml');
      writeFileSync(valuesFile, stringify(suiteValues));
      const chart = path.join(repoRoot, 'charts', 'mooring');
      const helmArgs = ['install', 'mooring', chart, '--namespace', RELEASE_NAMESPACE, '--kubeconfig', admin];
      const installed = spawnSync(
        toolPath('helm'),
        [
          ...helmArgs,
          '--values',
          path.join(repoRoot, '.github', 'ci', 'kind-values.yaml'),
          '--values',
          valuesFile,
          '--wait',
          '--timeout',
          '5m',
        ],
        { encoding: 'utf8', env: { PATH: process.env.PATH ?? '', HOME: work } },
      );
      if (installed.status !== 0) throw new Error(`helm install failed: ${installed.stderr}\n${agentLogs()}`);

      // 4. A token of the chart's ServiceAccount, for checking what its Roles allow.
      const token = adminKubectl([
        'create',
        'token',
        'mooring',
        '-n',
        RELEASE_NAMESPACE,
        '--duration',
        '1h',
      ]).trim();
      agentConfig = tokenKubeconfig(k3s.getKubeConfig(), token, path.join(work, 'agent.kubeconfig'));
    }, 900_000);

    afterAll(async () => {
      if (k3s) console.log(`agent log tail:\n${agentLogs().split('\n').slice(-30).join('\n')}`);
      forward?.kill('SIGTERM');
      await client?.close();
      await k3s?.stop();
      if (work) rmSync(work, { recursive: true, force: true });
    }, 120_000);

    it('the image runs as the chart runs it: Ready, non-root, read-only root, not restarted', () => {
      const pods = getJson<{ items: AgentPod[] }>([
        'get',
        'pods',
        '-n',
        RELEASE_NAMESPACE,
        '-l',
        'app.kubernetes.io/name=mooring',
      ]).items;
      expect(pods).toHaveLength(1);
      const pod = pods[0]!;
      expect(pod.spec.containers[0]!.image).toBe(IMAGE);
      expect(pod.spec.containers[0]!.securityContext?.readOnlyRootFilesystem).toBe(true);
      expect(
        pod.spec.securityContext?.runAsNonRoot ?? pod.spec.containers[0]!.securityContext?.runAsNonRoot,
      ).toBe(true);
      expect(pod.status.conditions.find((c) => c.type === 'Ready')?.status).toBe('True');
      expect(pod.status.containerStatuses[0]!.restartCount).toBe(0);
    });

    it('converges every deployment: every ResourceSpec group, an HPA, a bundled Postgres', async () => {
      await waitFor(
        'the objects of the three deployments',
        () => {
          const names = adminKubectl(['get', 'deploy,sts,hpa,svc,secret', '-n', APPS, '-o', 'name']).split(
            '\n',
          );
          return [
            'deployment.apps/groups',
            'deployment.apps/plain',
            'deployment.apps/doomed',
            'statefulset.apps/groups-postgres',
            'horizontalpodautoscaler.autoscaling/groups',
          ].every((n) => names.includes(n));
        },
        300_000,
        2000,
      );
      for (const id of Object.values(ids)) {
        const labelled = adminKubectl([
          'get',
          'deploy',
          '-n',
          APPS,
          '-l',
          `mooring.dev/deployment-id=${id}`,
          '-o',
          'name',
        ]);
        expect(labelled.trim()).not.toBe('');
      }
      const groups = deployment('groups');
      expect(groups.metadata.managedFields?.map((f) => f.manager)).toContain('mooring');
      // Every workload available (the Postgres volumes bound), so what the agent sees next is a
      // steady cluster and a health change cannot pass for a perpetual diff.
      adminKubectl([
        'wait',
        '--for=condition=Available',
        'deployment',
        '--all',
        '-n',
        APPS,
        '--timeout=400s',
      ]);
      for (const sts of adminKubectl(['get', 'statefulset', '-n', APPS, '-o', 'name']).trim().split('\n'))
        adminKubectl(['rollout', 'status', '-n', APPS, sts, '--timeout=300s']);
    }, 700_000);

    it(`makes 0 writes over ${IDLE_CYCLES} idle cycles (the API server's audit log)`, async () => {
      await settled(240_000);
      const before = writesOf(await auditedRequests(k3s!)).length;
      const readsBefore = (await auditedRequests(k3s!)).length;
      await sleep(IDLE_CYCLES * suiteValues.pollIntervalSeconds * 1000);
      const all = await auditedRequests(k3s!);
      const idleWrites = writesOf(all).slice(before);
      expect(all.length, 'the agent kept polling the API server').toBeGreaterThan(readsBefore);
      expect(describeRequests(idleWrites), 'writes while nothing changed: a perpetual diff').toBe('');
    }, 400_000);

    it("repairs kubectl set image and kubectl scale, keeping another manager's field", async () => {
      const container = deployment('plain').spec.template.spec.containers[0]!.name;
      // Another team's annotation, applied server-side under its own field manager.
      adminKubectl(
        ['apply', '--server-side', '--field-manager=platform-team', '-f', '-'],
        stringify({
          apiVersion: 'apps/v1',
          kind: 'Deployment',
          metadata: { name: 'plain', namespace: APPS, annotations: { 'example.com/cost-center': 'cc-42' } },
        }),
      );
      adminKubectl([
        'set',
        'image',
        '-n',
        APPS,
        'deployment/plain',
        `${container}=docker.io/library/busybox:1.37`,
      ]);
      adminKubectl(['scale', '-n', APPS, 'deployment/plain', '--replicas=3']);
      const repaired = await waitFor(
        'the image and replicas put back',
        () => {
          const d = deployment('plain');
          return (
            d.spec.template.spec.containers[0]!.image.endsWith('python:3.13-alpine') &&
            d.spec.replicas === 1 &&
            d
          );
        },
        120_000,
        1000,
      );
      expect(repaired.metadata.annotations?.['example.com/cost-center']).toBe('cc-42');
      expect(repaired.metadata.managedFields?.map((f) => f.manager)).toContain('platform-team');
      // Once repaired, quiet again: the repair itself is not a new perpetual diff.
      await settled(120_000);
    }, 300_000);

    it('AWAITING_DELETE: everything the deployment owns is removed', async () => {
      await client!.deleteDeployment(ids.doomed!);
      await waitFor(
        'the objects of doomed gone',
        () =>
          adminKubectl([
            'get',
            'deploy,sts,svc,secret,hpa,pdb,networkpolicy',
            '-n',
            APPS,
            '-l',
            `mooring.dev/deployment-id=${ids.doomed}`,
            '-o',
            'name',
          ]).trim() === '',
        180_000,
        2000,
      );
      expect(adminKubectl(['get', 'deployment', 'plain', '-n', APPS, '-o', 'name']).trim()).toBe(
        'deployment.apps/plain',
      );
    }, 240_000);

    it("the chart's ServiceAccount may do what the chart grants and nothing more", () => {
      const can = (args: string[]) => kubectl(agentConfig, work, ['auth', 'can-i', ...args]).stdout.trim();
      expect(can(['patch', 'deployments.apps', '-n', APPS])).toBe('yes');
      expect(can(['create', 'deployments.apps', '-n', 'default'])).toBe('no');
      expect(can(['list', 'namespaces'])).toBe('no');
      expect(can(['list', 'nodes'])).toBe('no');
      expect(kubectl(agentConfig, work, ['get', 'namespace', 'default']).stderr).toMatch(/forbidden/i);
    });

    it('the API server refused the agent nothing, and no secret value reached its log', async () => {
      const requests = await auditedRequests(k3s!);
      expect(requests.length).toBeGreaterThan(0);
      expect(describeRequests(requests.filter((r) => r.code === 401 || r.code === 403))).toBe('');
      const log = agentLogs();
      for (const value of Object.values(secrets)) expect(log).not.toContain(value);
    });
  },
);
