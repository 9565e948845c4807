/**
 * One settings file for `mooring render` and `mooring run`: for the same deployment and settings
 * file, the objects `mooring render` prints are exactly the objects the agent applies, read back
 * from the sandbox with kubectl (the Postgres credentials' generated value aside).
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { render } from '../../src/cli/render.ts';
import { ANNOTATIONS, LABELS } from '../../src/labels.ts';
import type { RenderedObject } from '../../src/render/index.ts';
import { captureContext } from '../cli/helpers.ts';
import type { AgentProcess } from '../support/agent-process.ts';
import { deploymentBody, NAMESPACE, spawnAgent, type Stack, startStack, waitForState } from './harness.ts';

/** Members that differ from the defaults, and none for the datastore images (the defaults are the test). */
const SETTINGS = {
  clusterDomain: 'corp.example',
  commands: { queue: ['python', '-m', 'worker'] },
  policy: { podSecurity: 'restricted' },
};

/** Paths of `want` whose value `live` does not hold; arrays must match element by element. */
function differences(live: unknown, want: unknown, at = ''): string[] {
  if (Array.isArray(want)) {
    if (!Array.isArray(live) || live.length !== want.length) return [`${at} (length)`];
    return want.flatMap((w, i) => differences(live[i], w, `${at}[${i}]`));
  }
  if (want !== null && typeof want === 'object') {
    if (live === null || typeof live !== 'object') return [at];
    return Object.entries(want).flatMap(([k, w]) =>
      differences((live as Record<string, unknown>)[k], w, `${at}.${k}`),
    );
  }
  return live === want ? [] : [at];
}

/** An object as the API server stores it: a Secret's write-only `stringData` folded into `data`. */
function asStored(o: RenderedObject): RenderedObject & { data?: Record<string, string> } {
  const { stringData, ...rest } = o as RenderedObject & {
    stringData?: Record<string, string>;
    data?: Record<string, string>;
  };
  if (!stringData) return rest;
  const encoded = Object.fromEntries(
    Object.entries(stringData).map(([k, v]) => [k, Buffer.from(v).toString('base64')]),
  );
  return { ...rest, data: { ...rest.data, ...encoded } };
}

describe('mooring render prints what mooring run applies', { timeout: 90_000 }, () => {
  let stack: Stack;
  let agent: AgentProcess;
  let rendered: RenderedObject[] = [];
  let deploymentId = '';

  beforeAll(async () => {
    stack = await startStack();
    const settingsFile = path.join(stack.dir, 'settings.yaml');
    await writeFile(settingsFile, YAML.stringify(SETTINGS));
    const body = deploymentBody('same', 'registry.example/same:1.0.0', [{ name: 'APP_TOKEN', value: 't-1' }]);
    body.source_config.resource_spec = { ...body.source_config.resource_spec, queue_cpu: 0.25 } as never;
    const created = await stack.client.createDeployment(body);
    deploymentId = created.id;
    agent = spawnAgent(stack.agentEnv({ MOORING_SETTINGS: settingsFile }));
    await waitForState(agent, deploymentId, 'Ready', 60_000);

    // The record as the agent reads it, and its revision, rendered by the CLI with the same file.
    const record = (await stack.client.listAllDeployments()).items.find((d) => d.id === deploymentId)!;
    await writeFile(path.join(stack.dir, 'deployment.json'), JSON.stringify(record));
    const revisionId = record.latest_revision_id ?? record.active_revision_id;
    const args = ['--deployment', 'deployment.json', '--settings', 'settings.yaml', '-o', 'json'];
    if (revisionId) {
      const revision = await stack.client.getRevision(deploymentId, revisionId);
      await writeFile(path.join(stack.dir, 'revision.json'), JSON.stringify(revision));
      args.push('--revision', 'revision.json');
    }
    const out = captureContext({}, undefined, stack.dir);
    expect(await render(args, out.ctx), out.stderr()).toBe(0);
    rendered = (JSON.parse(out.stdout()) as { items: RenderedObject[] }).items;
  }, 90_000);

  afterAll(async () => {
    await agent?.stop();
    await stack?.close();
  });

  it('the agent applied the same set of objects', async () => {
    const kinds = 'secret,service,statefulset,deployment,hpa,pdb,networkpolicy';
    const names = await stack.kubectl([
      'get',
      kinds,
      '-n',
      NAMESPACE,
      '-l',
      `${LABELS.deploymentId}=${deploymentId}`,
      '-o',
      'json',
    ]);
    const live = (JSON.parse(names) as { items: RenderedObject[] }).items.map(
      (o) => `${o.kind}/${o.metadata.name}`,
    );
    expect(live.sort()).toEqual(rendered.map((o) => `${o.kind}/${o.metadata.name}`).sort());
    expect(rendered.map((o) => o.kind)).toContain('StatefulSet');
  });

  it('every rendered field is live with the rendered value', async () => {
    for (const want of rendered) {
      const live = JSON.parse(
        await stack.kubectl([
          'get',
          want.kind.toLowerCase(),
          want.metadata.name,
          '-n',
          NAMESPACE,
          '-o',
          'json',
        ]),
      ) as RenderedObject;
      // The credentials are generated once by the agent; render cannot know them.
      const createOnly = want.metadata.annotations?.[ANNOTATIONS.createOnly] === 'true';
      const { data: _data, ...withoutData } = asStored(want);
      expect(
        differences(live, createOnly ? withoutData : asStored(want)),
        `${want.kind}/${want.metadata.name}`,
      ).toEqual([]);
    }
    const queue = rendered.find(
      (o) => o.kind === 'Deployment' && o.metadata.name === 'same-queue',
    ) as unknown as {
      spec: { template: { spec: { containers: { command?: string[] }[] } } };
    };
    expect(queue.spec.template.spec.containers[0]!.command).toEqual(['python', '-m', 'worker']);
  });
});
