/**
 * RBAC proof, both ways: the agent runs with the environment the Helm chart gives it and goes
 * through every path that makes a Kubernetes request (start-up namespace check, leader Lease
 * create/get/renew, create, update, drift repair, prune, UNUSED, AWAITING_DELETE, Events, the
 * restart memo read at the start and saved at the stop); the
 * sandbox's request log is what it did. Every request must be allowed by the Roles the chart
 * renders for the same values (`helm template`), and every verb those Roles grant must have been
 * used. A permission the agent needs and the chart lacks fails here before a real cluster answers
 * 403; a permission the chart grants and nothing uses fails here too. The accesses seen are
 * written to `test-output/rbac-usage.json`.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RequestRecord } from '../../src/sandbox/server.ts';
import { chartInstall, type ChartInstall, type ChartValues } from '../chart/chart-roles.ts';
import { RELEASE } from '../chart/helm.ts';
import { rolesAllow } from '../chart/rbac.ts';
import { accessesOf, compareUsage, grantedAccesses } from '../chart/rbac-usage.ts';
import type { AgentProcess } from '../support/agent-process.ts';
import { REPO } from '../support/agent-process.ts';
import { waitFor } from '../support/wait.ts';
import {
  deploymentBody,
  LISTENER_ID,
  NAMESPACE,
  spawnAgent,
  type Stack,
  startStack,
  waitForState,
} from './harness.ts';

/**
 * The chart values under test, over `ci/default-values.yaml`: the defaults, with leader election
 * on so the Lease path is exercised. Another value set (a values file path) can be added here.
 */
const VALUES: ChartValues = [{ namespaces: [NAMESPACE], leaderElection: { enabled: true } }];

/** The agent settings that change what it asks of the API server, as the chart sets them. */
const CHART_SETTINGS = [
  'MOORING_LEADER_ELECTION',
  'MOORING_LEASE_NAME',
  'MOORING_DELETE_VOLUMES',
  'MOORING_RESTART_MEMO',
  'MOORING_WATCH',
];

describe('RBAC proof: the chart grants exactly what the agent uses', { timeout: 120_000 }, () => {
  let stack: Stack;
  let agent: AgentProcess;
  let chart: ChartInstall;

  const agentRequests = (): RequestRecord[] =>
    stack.kube.requests().filter((r: RequestRecord) => (r.userAgent ?? '').startsWith('mooring/'));
  const exists = async (kind: string, name: string) =>
    (await stack.kubectl(['get', kind, '-n', NAMESPACE, '--ignore-not-found', '-o', 'name', name])).trim() !==
    '';
  const replicas = async (name: string) =>
    Number(await stack.kubectl(['get', 'deploy', name, '-n', NAMESPACE, '-o', 'jsonpath={.spec.replicas}']));

  beforeAll(async () => {
    chart = chartInstall(VALUES);
    stack = await startStack();
    // The Lease lives in the release namespace.
    const nsFile = path.join(stack.dir, 'release-namespace.json');
    writeFileSync(
      nsFile,
      JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: RELEASE.namespace } }),
    );
    await stack.kubectl(['create', '-f', nsFile]);
    // What an earlier exposure setting left: an Ingress of one deployment. The agent (exposure off,
    // the chart's default) lists Ingresses once at start and deletes it.
    const earlier = await stack.client.createDeployment(
      deploymentBody('earlier', 'registry.example/earlier:1'),
    );
    const leftover = path.join(stack.dir, 'leftover-ingress.json');
    writeFileSync(
      leftover,
      JSON.stringify({
        apiVersion: 'networking.k8s.io/v1',
        kind: 'Ingress',
        metadata: {
          name: 'earlier',
          namespace: NAMESPACE,
          labels: {
            'app.kubernetes.io/managed-by': 'mooring',
            'mooring.dev/listener-id': LISTENER_ID,
            'mooring.dev/deployment-id': earlier.id,
          },
        },
        spec: {
          rules: [
            {
              host: 'earlier.example.com',
              http: {
                paths: [
                  {
                    path: '/',
                    pathType: 'Prefix',
                    backend: { service: { name: 'earlier', port: { number: 80 } } },
                  },
                ],
              },
            },
          ],
        },
      }),
    );
    await stack.kubectl(['apply', '--server-side', '--field-manager=mooring', '-f', leftover]);
    const settings = Object.fromEntries(
      CHART_SETTINGS.flatMap((name) => (chart.env.has(name) ? [[name, chart.env.get(name) ?? '']] : [])),
    );
    agent = spawnAgent(
      stack.agentEnv({
        ...settings,
        MOORING_POD_NAME: 'mooring-0',
        MOORING_POD_NAMESPACE: RELEASE.namespace,
        MOORING_LEASE_NAMESPACE: RELEASE.namespace,
      }),
    );
  }, 60_000);

  afterAll(async () => {
    await agent?.stop();
    await stack?.close();
  });

  it('drives create, update, drift repair, prune, UNUSED and AWAITING_DELETE', async () => {
    await waitFor('the leftover Ingress deleted', async () => !(await exists('ingress', 'earlier')), 30_000);
    // Autoscaled (HPA) with a PDB, an env Secret, Redis and Postgres: every kind the agent renders.
    const body = deploymentBody('rbac', 'registry.example/rbac:1.0.0', [{ name: 'TOKEN', value: 'one' }]);
    body.source_config.resource_spec = { ...body.source_config.resource_spec, min_scale: 2, max_scale: 3 };
    const created = await stack.client.createDeployment(body);
    await waitForState(agent, created.id, 'Ready', 40_000);
    for (const [kind, name] of [
      ['hpa', 'rbac'],
      ['pdb', 'rbac'],
      ['networkpolicy', 'rbac-datastores'],
      ['statefulset', 'rbac-postgres'],
    ] as const) {
      expect(await exists(kind, name), `${kind} ${name}`).toBe(true);
    }

    // A new image, a rotated secret and a new label: the label is on every object, so each kind
    // is updated (an image alone updates only the app's Deployments).
    await stack.client.patchDeployment(created.id, {
      source_revision_config: { image_uri: 'registry.example/rbac:2.0.0' },
      secrets: [{ name: 'TOKEN', value: 'two' }],
      source_config: {
        ...created.source_config,
        resource_spec: { ...created.source_config.resource_spec, labels: { wave: 'two' } },
      },
    });
    await waitFor(
      'new image applied',
      () =>
        JSON.stringify(stack.kube.getObject('apps/v1', 'Deployment', NAMESPACE, 'rbac') ?? {}).includes(
          'rbac:2.0.0',
        ),
      30_000,
    );

    // Drift repair: a hand-scaled Redis is scaled back.
    await stack.kubectl(['scale', 'deploy', 'rbac-redis', '-n', NAMESPACE, '--replicas=4']);
    await waitFor('Redis replicas restored', async () => (await replicas('rbac-redis')) === 1, 30_000);

    // Prune: an object of ours that no render wants is deleted.
    const extra = path.join(stack.dir, 'rbac-extra.json');
    writeFileSync(
      extra,
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'Service',
        metadata: {
          name: 'rbac-extra',
          namespace: NAMESPACE,
          labels: {
            'app.kubernetes.io/managed-by': 'mooring',
            'mooring.dev/listener-id': LISTENER_ID,
            'mooring.dev/deployment-id': created.id,
          },
        },
        spec: { ports: [{ port: 80 }] },
      }),
    );
    await stack.kubectl(['apply', '--server-side', '--field-manager=mooring', '-f', extra]);
    await waitFor('the extra Service pruned', async () => !(await exists('svc', 'rbac-extra')), 30_000);

    stack.cp.store.setDeploymentStatus(created.id, 'UNUSED');
    await waitFor('scaled to zero', async () => (await replicas('rbac')) === 0, 30_000);
    await stack.client.deleteDeployment(created.id);
    await waitForState(agent, created.id, 'Deleted', 40_000);
    // The leader has renewed its Lease (a PUT) by now, or does within a retry period.
    await waitFor(
      'a Lease renewal',
      () => agentRequests().some((r) => r.resource === 'leases' && r.verb === 'update'),
      20_000,
    );
    // Stopped as Kubernetes stops it: the leader saves its restart memo (read at its start).
    const exit = await agent.stop(15_000);
    expect(exit.code).toBe(0);
  });

  it('every request the agent made is allowed by the Roles the chart renders', () => {
    const denied = agentRequests()
      .filter(
        (r) =>
          !rolesAllow(chart.roles, {
            verb: r.verb,
            group: r.group,
            resource: r.resource,
            ...(r.namespace ? { namespace: r.namespace } : {}),
            ...(r.name ? { name: r.name } : {}),
          }) ||
          (r.verb === 'apply' &&
            r.status === 201 &&
            !rolesAllow(chart.roles, {
              verb: 'create',
              group: r.group,
              resource: r.resource,
              ...(r.namespace ? { namespace: r.namespace } : {}),
            })),
      )
      .map((r) => `${r.method} ${r.path} (${r.verb} ${r.group}/${r.resource})`);
    expect([...new Set(denied)]).toEqual([]);
  });

  it('every verb the chart grants was used, and every one used is granted', () => {
    const scopes = { watched: [NAMESPACE], release: RELEASE.namespace };
    const used = new Set(agentRequests().flatMap((r) => accessesOf(r, scopes)));
    const outDir = path.join(REPO, 'test-output');
    mkdirSync(outDir, { recursive: true });
    writeFileSync(path.join(outDir, 'rbac-usage.json'), `${JSON.stringify([...used].sort(), null, 2)}\n`);
    // Not vacuous: the life cycle reached leases, applies, deletes, events and the namespace check.
    for (const access of [
      'update coordination.k8s.io/leases @release',
      'patch apps/deployments @watched',
      'delete core/services @watched',
      'create core/events @watched',
      'get core/namespaces @watched',
      'get core/configmaps @release',
      'create core/configmaps @release',
    ]) {
      expect(used, access).toContain(access);
    }
    expect(compareUsage(used, grantedAccesses(chart.roles, scopes))).toEqual({ unused: [], missing: [] });
  });
});
