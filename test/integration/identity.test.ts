/**
 * Whose object is it: ownership is read from the live object, never inferred from its name. The
 * reference control plane, the sandbox Kubernetes API and the agent as a child process, at the
 * `baseline` and the `restricted` Pod Security Standard, results read back with kubectl.
 *
 * Regressions (issue 39): a deleted deployment's kept Postgres claim was mounted, or adopted by the
 * bundled Postgres StatefulSet, by the next deployment of the same name or of a name deriving the
 * same base (the claim's owner was read from its name); another deployment's `<base>-tls` Secret
 * and the operator's `exposure.tls.secretName` could be read by any record; record labels put a
 * record's pods behind another workload's Service or inside its NetworkPolicy's allow-list.
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { ControlPlaneClient } from '../../src/control-plane/client.ts';
import type { ResourceSpecRecord } from '../../src/contract/index.ts';
import { baseNameOf } from '../../src/render/names.ts';
import { type AgentProcess, spawnAgent } from '../support/agent-process.ts';
import { createSmallDeployment } from '../support/deployment-body.ts';
import { agentEnv, type Servers, startServers } from '../support/stack.ts';
import { waitFor } from '../support/wait.ts';
import { deploymentState, kubectlOf, waitForState } from './harness.ts';

const TENANT_1 = '7d3c1a2b-0000-4000-8000-0000000000a1';
const TENANT_2 = '7d3c1a2b-0000-4000-8000-0000000000a2';
/** Two names that derive the same base name (the 6-hex suffix of a long name collides). */
const COLLIDING = [
  'tenant-shop-database-of-record-number-6514',
  'tenant-shop-database-of-record-number-9612',
];
const OTHER_LISTENER = '44444444-4444-4444-8444-444444444444';
const OTHER_DEPLOYMENT = '55555555-5555-4555-8555-555555555555';
const KINDS = 'deploy,sts,svc,secret,hpa,pdb,networkpolicy,ingress';

describe.each(['baseline', 'restricted'])(
  'ownership by identity at %s (control plane + sandbox + agent + kubectl)',
  {
    timeout: 90_000,
  },
  (podSecurity) => {
    let servers: Servers;
    let agent: AgentProcess;
    const clients: ControlPlaneClient[] = [];
    const kubectl = (args: string[]) => kubectlOf(servers)(args);

    const tenant = (tenantId: string) => {
      const c = new ControlPlaneClient({
        baseUrl: servers.cp.url,
        apiKey: servers.apiKey,
        tenantId,
        retries: 0,
      });
      clients.push(c);
      return c;
    };
    const create = (
      client: ControlPlaneClient,
      name: string,
      namespace: string,
      spec: ResourceSpecRecord = {},
      secrets: { name: string; value: string }[] = [],
    ) =>
      createSmallDeployment(client, { name, listenerId: servers.listenerId, namespace }, { spec, secrets });
    /** Names of what deployment `id` owns in `ns` (volumes aside). */
    const owned = async (ns: string, id: string) =>
      (await kubectl(['get', KINDS, '-n', ns, '-l', `mooring.dev/deployment-id=${id}`, '-o', 'name']))
        .trim()
        .split('\n')
        .filter((l) => l !== '');
    const claimOwner = async (ns: string, claim: string) => {
      const pvc = JSON.parse(await kubectl(['get', 'pvc', claim, '-n', ns, '-o', 'json']));
      return pvc.metadata.labels['mooring.dev/deployment-id'] as string;
    };
    const refusedWith = async (id: string, ns: string, ...parts: string[]) => {
      // Settled either way: refused, or (the regression) applied and Ready. A deleted victim's
      // names stay held until the agent's listing shows its objects gone (the next poll after):
      // that refusal passes.
      await waitFor(
        `${id} settled`,
        async () => {
          const now = await deploymentState(agent, id);
          const held = now?.reason?.startsWith('MOORING_E_RENDER_NAME_COLLISION') ?? false;
          return /^(Refused|Ready)$/.test(now?.state ?? '') && !held;
        },
        30_000,
      );
      expect((await deploymentState(agent, id))?.state).toBe('Refused');
      const reason = (await deploymentState(agent, id))?.reason ?? '';
      for (const p of parts) expect(reason).toContain(p);
      expect(await owned(ns, id)).toEqual([]);
    };
    /** Mounts `claim` in a sidecar; brings its own Postgres so that none is bundled. */
    const mounting = (claim: string): [ResourceSpecRecord, { name: string; value: string }[]] => [
      {
        volumes: [{ name: 'stolen', persistentVolumeClaim: { claimName: claim } }],
        sidecars: [
          { name: 'reader', image: 'busybox:1', volumeMounts: [{ name: 'stolen', mountPath: '/stolen' }] },
        ],
      },
      [{ name: 'POSTGRES_URI_CUSTOM', value: 'postgres://elsewhere.example/db' }],
    ];

    /** The victims' ids: `victim` and the first colliding name, in namespaces `one` and `two`. */
    const victims: Record<string, string> = {};

    beforeAll(async () => {
      servers = await startServers({
        namespaces: ['one', 'two'],
        tmpPrefix: 'mooring-it-',
        rolloutDelayMs: 300,
      });
      const settingsFile = path.join(servers.dir, 'settings.yaml');
      await writeFile(
        settingsFile,
        YAML.stringify({
          policy: { podSecurity },
          exposure: {
            kind: 'ingress',
            tls: { clusterIssuer: 'letsencrypt' },
            allowedHosts: ['*.apps.example'],
          },
        }),
      );
      // Workloads mooring does not manage, sharing its namespaces: a Service and a NetworkPolicy.
      const foreign = path.join(servers.dir, 'foreign.yaml');
      await writeFile(
        foreign,
        [
          'apiVersion: v1\nkind: Service\nmetadata:\n  name: payments\n  namespace: one\nspec:\n  selector:\n    app: payments\n  ports:\n    - port: 80\n',
          'apiVersion: networking.k8s.io/v1\nkind: NetworkPolicy\nmetadata:\n  name: db-allow\n  namespace: two\nspec:\n  podSelector:\n    matchLabels:\n      app: db\n  ingress:\n    - from:\n        - podSelector:\n            matchExpressions:\n              - key: role\n                operator: In\n                values: [db-client]\n',
        ].join('---\n'),
      );
      await kubectl(['create', '-f', foreign]);
      agent = spawnAgent(agentEnv(servers, { MOORING_SETTINGS: settingsFile }), { stopGraceMs: 0 });
      const t1 = tenant(TENANT_1);
      const t2 = tenant(TENANT_2);
      victims.oneSame = await create(t1, 'victim', 'one');
      victims.oneColliding = await create(t1, COLLIDING[0]!, 'one');
      victims.twoSame = await create(t2, 'victim', 'two');
      victims.twoColliding = await create(t2, COLLIDING[0]!, 'two');
      for (const id of Object.values(victims)) await waitForState(agent, id, 'Ready', 60_000);
      // Deleted: their claims are kept (the default), labelled with their deployment ids.
      for (const [key, id] of Object.entries(victims))
        await (key.startsWith('one') ? t1 : t2).deleteDeployment(id);
      for (const [key, id] of Object.entries(victims)) {
        const ns = key.startsWith('one') ? 'one' : 'two';
        await waitFor(`${key} gone`, async () => (await owned(ns, id)).length === 0, 30_000);
      }
    }, 150_000);

    afterAll(async () => {
      await agent?.stop();
      for (const c of clients) await c.close();
      await servers?.close();
    });

    it('the colliding names derive one base name', () => {
      expect(COLLIDING[0]).not.toBe(COLLIDING[1]);
      expect(baseNameOf(COLLIDING[0]!)).toBe(baseNameOf(COLLIDING[1]!));
    });

    it("refuses a deployment whose bundled Postgres would adopt a deleted deployment's claim: same name, colliding name", async () => {
      const base = baseNameOf(COLLIDING[0]!);
      expect(await claimOwner('one', 'data-victim-postgres-0')).toBe(victims.oneSame);
      expect(await claimOwner('two', `data-${base}-postgres-0`)).toBe(victims.twoColliding);
      const same = await create(tenant(TENANT_1), 'victim', 'one');
      const colliding = await create(tenant(TENANT_2), COLLIDING[1]!, 'two');
      await refusedWith(same, 'one', 'MOORING_E_FOREIGN_OBJECT', 'data-victim-postgres-0', victims.oneSame!);
      await refusedWith(
        colliding,
        'two',
        'MOORING_E_FOREIGN_OBJECT',
        `data-${base}-postgres-0`,
        victims.twoColliding!,
      );
      expect(await claimOwner('one', 'data-victim-postgres-0')).toBe(victims.oneSame);
    });

    it("refuses a deployment that mounts a deleted deployment's claim in a sidecar: same name, colliding name", async () => {
      const base = baseNameOf(COLLIDING[0]!);
      const same = await create(tenant(TENANT_2), 'victim', 'two', ...mounting('data-victim-postgres-0'));
      const colliding = await create(
        tenant(TENANT_1),
        COLLIDING[1]!,
        'one',
        ...mounting(`data-${base}-postgres-0`),
      );
      await refusedWith(same, 'two', 'MOORING_E_FOREIGN_OBJECT', 'data-victim-postgres-0', victims.twoSame!);
      await refusedWith(
        colliding,
        'one',
        'MOORING_E_FOREIGN_OBJECT',
        `data-${base}-postgres-0`,
        victims.oneColliding!,
      );
    });

    it("refuses a deployment whose bundled Postgres would adopt a claim another listener's deployment kept", async () => {
      const file = path.join(servers.dir, 'theirs.yaml');
      const labels = `    app.kubernetes.io/managed-by: mooring\n    mooring.dev/listener-id: ${OTHER_LISTENER}\n    mooring.dev/deployment-id: ${OTHER_DEPLOYMENT}\n`;
      const spec = '  accessModes: [ReadWriteOnce]\n  resources:\n    requests:\n      storage: 1Gi\n';
      await writeFile(
        file,
        `apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata:\n  name: data-orders-postgres-0\n  namespace: one\n  labels:\n${labels}spec:\n${spec}`,
      );
      await kubectl(['create', '-f', file]);
      const id = await create(tenant(TENANT_1), 'orders', 'one');
      await refusedWith(
        id,
        'one',
        'MOORING_E_FOREIGN_OBJECT',
        'data-orders-postgres-0',
        `listener ${OTHER_LISTENER}`,
      );
    });

    it("refuses a record that reads another deployment's TLS Secret (a ClusterIssuer's certificate)", async () => {
      const tls = await create(tenant(TENANT_1), 'tls-thief', 'one', {
        sidecars: [{ name: 'leak', image: 'busybox:1', envFrom: [{ secretRef: { name: 'shop-tls' } }] }],
      });
      await refusedWith(tls, 'one', 'MOORING_E_RENDER_POLICY', '"shop-tls"');
    });

    it("refuses record labels that put its pods behind another workload's Service or in its NetworkPolicy's allow-list", async () => {
      const c = tenant(TENANT_2);
      const behind = await create(c, 'impostor', 'one', { labels: { app: 'payments', tier: 'web' } });
      const allowed = await create(c, 'sneaky', 'two', { labels: { role: 'db-client' } });
      const harmless = await create(c, 'harmless', 'one', { labels: { app: 'shop' } });
      await refusedWith(behind, 'one', 'MOORING_E_LABELS_FOREIGN_SELECTOR', 'Service/one/payments');
      await refusedWith(allowed, 'two', 'MOORING_E_LABELS_FOREIGN_SELECTOR', 'NetworkPolicy/two/db-allow');
      await waitForState(agent, harmless, 'Ready', 30_000);
    });
  },
);

describe.each(['baseline', 'restricted'])(
  "the operator's exposure.tls.secretName at %s (control plane + sandbox + agent + kubectl)",
  {
    timeout: 60_000,
  },
  (podSecurity) => {
    let servers: Servers;
    let agent: AgentProcess;
    let client: ControlPlaneClient;

    beforeAll(async () => {
      servers = await startServers({ namespaces: ['one'], tmpPrefix: 'mooring-it-', rolloutDelayMs: 300 });
      const settingsFile = path.join(servers.dir, 'settings.yaml');
      const exposure = {
        kind: 'ingress',
        tls: { secretName: 'corp-wildcard' },
        allowedHosts: ['*.apps.example'],
      };
      await writeFile(settingsFile, YAML.stringify({ policy: { podSecurity }, exposure }));
      client = new ControlPlaneClient({ baseUrl: servers.cp.url, apiKey: servers.apiKey, retries: 0 });
      agent = spawnAgent(agentEnv(servers, { MOORING_SETTINGS: settingsFile }), { stopGraceMs: 0 });
    }, 60_000);

    afterAll(async () => {
      await agent?.stop();
      await client?.close();
      await servers?.close();
    });

    it('refuses a record that mounts it, and writes nothing of it', async () => {
      const body = (name: string, resource_spec: ResourceSpecRecord) => ({
        name,
        source: 'external_docker' as const,
        source_config: {
          listener_id: servers.listenerId,
          listener_config: { k8s_namespace: 'one' },
          resource_spec: { min_scale: 1, max_scale: 1, cpu: 0.25, memory_mb: 128, ...resource_spec },
        },
        source_revision_config: { image_uri: 'registry.example/app:1' },
        secrets: [],
      });
      const { id } = await client.createDeployment(
        body('wildcard-thief', { volumes: [{ name: 'cert', secret: { secretName: 'corp-wildcard' } }] }),
      );
      await waitFor(
        `${id} settled`,
        async () => /^(Refused|Ready)$/.test((await deploymentState(agent, id))?.state ?? ''),
        30_000,
      );
      const status = await deploymentState(agent, id);
      expect(status?.state).toBe('Refused');
      expect(status?.reason).toContain('MOORING_E_RENDER_POLICY');
      expect(status?.reason).toContain('"corp-wildcard"');
      const kubectl = kubectlOf(servers);
      expect(
        (
          await kubectl(['get', KINDS, '-n', 'one', '-l', `mooring.dev/deployment-id=${id}`, '-o', 'name'])
        ).trim(),
      ).toBe('');
    });
  },
);
