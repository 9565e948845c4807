import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import type { CliContext } from '../../src/cli/context.ts';
import { controlPlane } from '../../src/cli/control-plane.ts';
import { ControlPlaneClient } from '../../src/control-plane/client.ts';
import { ControlStore } from '../../src/control-plane/server/control-store.ts';
import { loadSeed } from '../../src/control-plane/server/seed.ts';
import { MooringError } from '../../src/errors.ts';

function context(env: Record<string, string> = {}, signal = new AbortController().signal) {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (c) => {
    out += String(c);
  });
  stderr.on('data', (c) => {
    err += String(c);
  });
  const ctx: CliContext = {
    env: { MOORING_LOG_LEVEL: 'silent', ...env },
    stdout,
    stderr,
    signal,
    cwd: join(import.meta.dirname, '../..'),
    version: 'test',
  };
  return { ctx, out: () => out, err: () => err };
}

describe('mooring control-plane', () => {
  const dir = mkdtempSync(join(tmpdir(), 'mooring-cp-cli-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('prints every flag with its default on --help', async () => {
    const c = context();
    expect(await controlPlane(['--help'], c.ctx)).toBe(0);
    for (const flag of [
      '--host',
      '--port',
      '--db',
      '--api-key',
      '--seed',
      '--simulate-builds',
      '--build-failure-rate',
      '--deleted-retention',
    ]) {
      expect(c.out()).toContain(flag);
    }
    expect(c.out()).toContain('default 8080');
    expect(c.out()).toContain('default off');
    expect(c.out()).toContain('default 3600');
  });

  it.each([
    [['--port', 'http'], '--port must be an integer'],
    [['--port', '70000'], '--port must be an integer'],
    [['--port', '0'], '--api-key (or MOORING_API_KEY) is required'],
    [['--bogus'], "Unknown option '--bogus'"],
    [['--simulate-builds', '0'], '--simulate-builds must be a decimal number above 0'],
    [['--simulate-builds', '1s'], '--simulate-builds must be a decimal number above 0'],
    [
      ['--simulate-builds', '1', '--build-failure-rate', '1.5'],
      '--build-failure-rate must be a decimal number between 0 and 1',
    ],
    [['--build-failure-rate', '0.5'], '--build-failure-rate needs --simulate-builds'],
    [['--deleted-retention', 'soon'], '--deleted-retention must be a decimal number 0 or more'],
  ])('refuses %j with one clear line and exit code 2', async (argv, message) => {
    const c = context();
    expect(await controlPlane(argv, c.ctx)).toBe(2);
    expect(c.err()).toContain(message);
  });

  it('refuses a seed file that is not valid, naming the problem', async () => {
    const seed = join(dir, 'bad.yaml');
    writeFileSync(seed, 'listeners:\n  - compute_type: vm\n');
    const c = context({ MOORING_API_KEY: 'k' });
    expect(await controlPlane(['--port', '0', '--seed', seed], c.ctx)).toBe(2);
    expect(c.err()).toContain('MOORING_E_INPUT_INVALID');
    expect(c.err()).toContain('compute_type');
  });

  it('refuses a seed nested 500 levels deep, as the API would: coded, exit 2', async () => {
    const seed = join(dir, 'deep.json');
    const deep = `${'{"v":'.repeat(500)}"x"${'}'.repeat(500)}`;
    const sidecar = `{"name":"s","securityContext":${deep}}`;
    writeFileSync(
      seed,
      `{"deployments":[{"name":"deep","source":"external_docker","source_revision_config":{"image_uri":"nginx"},` +
        `"source_config":{"resource_spec":{"sidecars":[${sidecar}]}}}]}`,
    );
    const c = context({ MOORING_API_KEY: 'k' });
    expect(await controlPlane(['--port', '0', '--seed', seed], c.ctx)).toBe(2);
    expect(c.err()).toContain('MOORING_E_INPUT_INVALID');
    expect(c.err()).toContain('nested deeper than 64 levels');
    expect(c.err()).not.toContain('RangeError');
  });

  it('refuses a seed object nested 5,000 levels deep before walking it (no RangeError)', async () => {
    let deep: unknown = 'x';
    for (let i = 0; i < 5000; i++) deep = { v: deep };
    const deployment = {
      name: 'deep',
      source: 'external_docker',
      source_revision_config: { image_uri: 'nginx' },
      source_config: { resource_spec: { sidecars: [{ name: 's', securityContext: deep }] } },
    };
    let thrown: unknown;
    try {
      loadSeed(new ControlStore(), { deployments: [deployment] });
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(MooringError);
    expect((thrown as MooringError).code).toBe('MOORING_E_INPUT_INVALID');
    expect((thrown as MooringError).message).toContain('nested deeper than 64 levels');
  });

  it('serves the example seed, prints its URL, and stops when the signal aborts', async () => {
    const abort = new AbortController();
    const c = context({ MOORING_API_KEY: 'cli-key' }, abort.signal);
    const db = join(dir, 'cli.db');
    const running = controlPlane(['--port', '0', '--db', db, '--seed', 'examples/seed.yaml'], c.ctx);
    let url: string | undefined;
    for (let i = 0; i < 200 && !url; i++) {
      url = /listening on (http:\/\/\S+)/.exec(c.out())?.[1];
      if (!url) await new Promise((r) => setTimeout(r, 10));
    }
    expect(url).toBeDefined();
    expect(c.out()).toContain('seeded 1 listeners, 1 deployments');
    const client = new ControlPlaneClient({ baseUrl: url!, apiKey: 'cli-key', retries: 0 });
    try {
      const listing = await client.listAllDeployments({ remote_reconciled: true });
      expect(
        listing.items.map((d) => [d.name, d.source, d.source_config.listener_config?.k8s_namespace]),
      ).toEqual([['hello-app', 'external_docker', 'default']]);
      expect(listing.items[0]!.source_revision_config.image_uri).toBe('ghcr.io/example/app:1.0.0');
    } finally {
      await client.close();
    }
    abort.abort();
    expect(await running).toBe(0);
  });
});
