/**
 * Acceptance, exposure end to end: the agent as a child process with exposure on in its settings
 * file. A deployment with a custom_url gets its Ingress; a new URL rewrites only that Ingress; no
 * URL prunes it; idle cycles write nothing; a malformed URL refuses only its own deployment.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chartRoles } from '../chart/chart-roles.ts';
import { rolesAllow } from '../chart/rbac.ts';
import type { AgentProcess } from '../support/agent-process.ts';
import { waitFor } from '../support/wait.ts';
import {
  deploymentBody,
  deploymentState,
  NAMESPACE,
  resyncCount,
  spawnAgent,
  type Stack,
  startStack,
  waitForState,
} from './harness.ts';

interface IngressJson {
  spec: {
    ingressClassName?: string;
    rules: { host: string; http: { paths: { path: string; backend: { service: { name: string } } }[] } }[];
  };
}

const SETTINGS = 'exposure:\n  kind: ingress\n  ingressClassName: nginx\n';

describe('exposure end to end (agent process + sandbox + kubectl)', { timeout: 60_000 }, () => {
  let stack: Stack;
  let agent: AgentProcess;
  let settingsFile = '';
  let id = '';
  let badId = '';

  const withUrl = (name: string, custom_url: string) => {
    const body = deploymentBody(name, `registry.example/${name}:1`);
    return { ...body, source_config: { ...body.source_config, custom_url } };
  };
  const ingress = async (): Promise<IngressJson | undefined> => {
    const out = await stack.kubectl([
      'get',
      'ingress',
      'web',
      '-n',
      NAMESPACE,
      '--ignore-not-found',
      '-o',
      'json',
    ]);
    return out.trim() === '' ? undefined : (JSON.parse(out) as IngressJson);
  };
  /** Writes other than Events and the leader Lease, as `verb resource/name`. */
  const writes = () =>
    stack.kube
      .requests({ write: true })
      .filter((r) => r.resource !== 'events' && r.resource !== 'leases')
      .map((r) => `${r.verb} ${r.resource}/${r.name ?? ''}`);
  /** Every request before the last clear: the RBAC check below reads the whole run. */
  const earlier: ReturnType<Stack['kube']['requests']> = [];
  const clearRequests = () => {
    earlier.push(...stack.kube.requests());
    stack.kube.clearRequests();
  };
  /** Resyncs of `web` that found it converged and rendered nothing (resync.test.ts). */

  beforeAll(async () => {
    stack = await startStack();
    settingsFile = path.join(stack.dir, 'settings.yaml');
    writeFileSync(settingsFile, SETTINGS);
    id = (await stack.client.createDeployment(withUrl('web', 'https://web.example.com/app/'))).id;
    badId = (await stack.client.createDeployment(withUrl('bad', 'ftp://web.example.com/'))).id;
    agent = spawnAgent(stack.agentEnv({ MOORING_SETTINGS: settingsFile }));
    await waitForState(agent, id, 'Ready', 30_000);
  }, 60_000);

  afterAll(async () => {
    await agent?.stop();
    await stack?.close();
  });

  it('create with custom_url: an Ingress routes its host and path to the API server Service', async () => {
    const ing = await waitFor('Ingress web', ingress, 20_000);
    expect(ing.spec.ingressClassName).toBe('nginx');
    expect(ing.spec.rules[0]?.host).toBe('web.example.com');
    expect(ing.spec.rules[0]?.http.paths[0]?.path).toBe('/app');
    expect(ing.spec.rules[0]?.http.paths[0]?.backend.service.name).toBe('web');
    const listed = await stack.kubectl(['get', 'ingress', '-A']);
    expect(listed).toMatch(/apps\s+web\s+nginx\s+web\.example\.com\s+80\s/);
  });

  it('a malformed custom_url refuses that deployment alone, naming the field', async () => {
    const bad = await waitFor(
      'bad refused',
      async () =>
        (await deploymentState(agent, badId))?.state === 'Refused'
          ? deploymentState(agent, badId)
          : undefined,
      20_000,
    );
    expect(bad?.reason).toMatch(/MOORING_E_RENDER_INVALID.*source_config\.custom_url/);
    expect((await deploymentState(agent, id))?.state).toBe('Ready');
  });

  it("a second deployment at web's URL is refused, naming the one that has it; web keeps its route", async () => {
    const copy = (await stack.client.createDeployment(withUrl('copycat', 'https://WEB.example.com/app'))).id;
    const refused = await waitFor(
      'copycat refused',
      async () => {
        const s = await deploymentState(agent, copy);
        return s?.state === 'Refused' ? s : undefined;
      },
      20_000,
    );
    expect(refused.reason).toBe(
      `MOORING_E_RENDER_URL_CLAIMED: deployments ${id} ("web") and ${copy} ("copycat") would both be exposed at web.example.com/app: ${id} has it already, so ${copy} is refused`,
    );
    expect(await stack.kubectl(['get', 'ingress', '-n', NAMESPACE, '-o', 'name'])).toBe(
      'ingress.networking.k8s.io/web\n',
    );
    expect((await deploymentState(agent, id))?.state).toBe('Ready');
    await stack.client.deleteDeployment(copy);
    await waitForState(agent, copy, 'Deleted', 30_000);
  });

  it('idle cycles write nothing', async () => {
    clearRequests();
    const before = await resyncCount(agent);
    await waitFor('three idle resyncs', async () => (await resyncCount(agent)) >= before + 3, 20_000);
    expect(writes()).toEqual([]);
  });

  it('a restarted agent writes nothing: the Ingress it finds is the one it would apply', async () => {
    await agent.stop();
    clearRequests();
    agent = spawnAgent(stack.agentEnv({ MOORING_SETTINGS: settingsFile }));
    await waitForState(agent, id, 'Ready', 30_000);
    await waitFor('two idle resyncs', async () => (await resyncCount(agent)) >= 3, 20_000);
    expect(writes()).toEqual([]);
  });

  it('a new URL rewrites only the Ingress', async () => {
    clearRequests();
    await stack.client.patchDeployment(id, { source_config: { custom_url: 'https://shop.example.com/v2' } });
    await waitFor(
      'Ingress host changed',
      async () => (await ingress())?.spec.rules[0]?.host === 'shop.example.com',
      20_000,
    );
    await new Promise((r) => setTimeout(r, 2_500));
    // Created by a POST (ADR 0007), its first changed rendering first makes the create's fields
    // ours as applied (one managedFields patch, once), then applies.
    expect([...new Set(writes())]).toEqual(['patch ingresses/web', 'apply ingresses/web']);
    expect((await ingress())?.spec.rules[0]?.http.paths[0]?.path).toBe('/v2');
  });

  it('removing custom_url prunes the Ingress and its NetworkPolicy, nothing else', async () => {
    clearRequests();
    await stack.client.patchDeployment(id, { source_config: { custom_url: null } });
    await waitFor('Ingress pruned', async () => (await ingress()) === undefined, 20_000);
    await new Promise((r) => setTimeout(r, 2_500));
    expect([...new Set(writes())].sort()).toEqual(['delete ingresses/web', 'delete networkpolicies/web']);
    const policies = await stack.kubectl(['get', 'networkpolicy', '-n', NAMESPACE, '-o', 'name']);
    expect(policies.trim().split('\n')).toEqual(['networkpolicy.networking.k8s.io/web-datastores']);
  });

  it('every request the agent made is allowed by the chart Roles with exposure on, and not without', async () => {
    const agentRequests = [...earlier, ...stack.kube.requests()].filter(
      (r) => !(r.userAgent ?? '').startsWith('kubectl'),
    );
    const asked = (r: (typeof agentRequests)[number]) => ({
      verb: r.verb,
      group: r.group,
      resource: r.resource,
      ...(r.namespace ? { namespace: r.namespace } : {}),
      ...(r.name ? { name: r.name } : {}),
    });
    const withExposure = chartRoles({ namespaces: [NAMESPACE], exposure: { kind: 'ingress' } });
    expect(agentRequests.filter((r) => !rolesAllow(withExposure, asked(r))).map((r) => r.path)).toEqual([]);
    // Not vacuous: the default Roles refuse the agent's Ingress writes and reads by name.
    const ingressRequests = agentRequests.filter(
      (r) => r.resource === 'ingresses' && r.verb !== 'list' && r.verb !== 'delete',
    );
    expect(ingressRequests.length).toBeGreaterThan(0);
    const without = chartRoles({ namespaces: [NAMESPACE] });
    expect(ingressRequests.every((r) => !rolesAllow(without, asked(r)))).toBe(true);
  });

  it('turned off, the restarted agent deletes the Ingresses it left, with the default Roles', async () => {
    await stack.client.patchDeployment(id, { source_config: { custom_url: 'https://web.example.com/app/' } });
    await waitFor('Ingress back', ingress, 20_000);
    await agent.stop();
    writeFileSync(settingsFile, 'exposure:\n  kind: none\n');
    stack.kube.clearRequests();
    agent = spawnAgent(stack.agentEnv({ MOORING_SETTINGS: settingsFile }));
    await waitFor('Ingress deleted', async () => (await ingress()) === undefined, 30_000);
    await waitFor('two idle resyncs', async () => (await resyncCount(agent)) >= 3, 20_000);
    expect((await deploymentState(agent, id))?.state).toBe('Ready');
    // `bad` (its custom_url unroutable) is no longer refused: with exposure off the URL is not read.
    const ofWeb = writes().filter((w) => !w.includes('/bad'));
    expect([...new Set(ofWeb)].sort()).toEqual(['delete ingresses/web', 'delete networkpolicies/web']);
    const denied = stack.kube
      .requests()
      .filter((r) => (r.userAgent ?? '').startsWith('mooring/'))
      .filter(
        (r) =>
          !rolesAllow(chartRoles({ namespaces: [NAMESPACE] }), {
            verb: r.verb,
            group: r.group,
            resource: r.resource,
            ...(r.namespace ? { namespace: r.namespace } : {}),
            ...(r.name ? { name: r.name } : {}),
          }),
      );
    expect(denied.map((r) => r.path)).toEqual([]);
    // Once gone, the next start finds nothing to delete and writes nothing.
    await agent.stop();
    stack.kube.clearRequests();
    agent = spawnAgent(stack.agentEnv({ MOORING_SETTINGS: settingsFile }));
    await waitFor('two idle resyncs', async () => (await resyncCount(agent)) >= 3, 20_000);
    expect(writes()).toEqual([]);
  });
});
