import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { diff } from '../../src/cli/diff.ts';
import { run } from '../../src/cli/run.ts';
import { SETTINGS } from '../../src/config.ts';
import { captureContext } from './helpers.ts';

describe('mooring run', () => {
  it('--help documents every setting with its default', async () => {
    const c = captureContext();
    expect(await run(['--help'], c.ctx)).toBe(0);
    for (const s of SETTINGS) expect(c.stdout()).toContain(`--${s.flag}`);
    expect(c.stdout()).toContain('default: 15 (seconds)');
  });

  it('bad configuration: one line per problem, exit 2', async () => {
    const c = captureContext({ MOORING_POLL_INTERVAL: 'often' });
    expect(await run([], c.ctx)).toBe(2);
    const lines = c.stderr().trim().split('\n');
    expect(lines).toEqual([
      'mooring run: MOORING_E_CONFIG_INVALID: --poll-interval (MOORING_POLL_INTERVAL): must be a positive number of seconds (got "often")',
      'mooring run: MOORING_E_CONFIG_INVALID: --control-plane-url (MOORING_CONTROL_PLANE_URL): is required',
      'mooring run: MOORING_E_CONFIG_INVALID: --listener-id (MOORING_LISTENER_ID): is required',
      'mooring run: MOORING_E_CONFIG_INVALID: --namespaces (MOORING_NAMESPACES): is required',
      'mooring run: MOORING_E_CONFIG_INVALID: --api-key-file (MOORING_API_KEY_FILE) or --api-key (MOORING_API_KEY): one is required',
      'mooring run: see mooring run --help',
    ]);
  });

  it('shards without leader election: MOORING_E_SHARDS_INVALID, exit 2', async () => {
    const c = captureContext({
      MOORING_CONTROL_PLANE_URL: 'http://127.0.0.1:9',
      MOORING_API_KEY: 'k',
      MOORING_LISTENER_ID: '11111111-1111-4111-8111-111111111111',
      MOORING_NAMESPACES: 'default',
    });
    expect(await run(['--shards', '3'], c.ctx)).toBe(2);
    expect(c.stderr().trim().split('\n')[0]).toBe(
      'mooring run: MOORING_E_SHARDS_INVALID: --shards (MOORING_SHARDS): 3 shards need --leader-election (MOORING_LEADER_ELECTION): without it every replica would write every shard',
    );
  });

  it('a bad settings file stops it at start: exit 2, one line per problem naming the member, no value', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'mooring-run-settings-'));
    const file = path.join(dir, 'settings.yaml');
    writeFileSync(file, 'redisImage: ""\nprobes: { path: hunter2-not-a-path }\n');
    const c = captureContext({
      MOORING_CONTROL_PLANE_URL: 'http://127.0.0.1:9',
      MOORING_API_KEY: 'k',
      MOORING_LISTENER_ID: '11111111-1111-4111-8111-111111111111',
      MOORING_NAMESPACES: 'default',
      MOORING_SETTINGS: file,
    });
    try {
      expect(await run([], c.ctx)).toBe(2);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    const lines = c.stderr().trim().split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(
      /^mooring run: MOORING_E_CONFIG_INVALID: --settings \(MOORING_SETTINGS\): ".*settings\.yaml": redisImage: /,
    );
    expect(lines[1]).toMatch(/: probes\.path: must be an absolute path/);
    expect(c.stderr()).not.toContain('hunter2');
  });

  it('an unreadable kubeconfig is a configuration error (exit 2)', async () => {
    const c = captureContext({
      MOORING_CONTROL_PLANE_URL: 'http://127.0.0.1:9',
      MOORING_API_KEY: 'k',
      MOORING_LISTENER_ID: '11111111-1111-4111-8111-111111111111',
      MOORING_NAMESPACES: 'default',
      MOORING_KUBECONFIG: '/nonexistent/kubeconfig',
    });
    expect(await run([], c.ctx)).toBe(2);
    expect(c.stderr()).toMatch(/^mooring run: MOORING_E_CONFIG_INVALID: kubeconfig could not be loaded/);
  });
});

describe('mooring diff', () => {
  it('takes the same settings and refuses bad ones with exit 2', async () => {
    const c = captureContext({});
    expect(await diff(['--concurrency', 'x'], c.ctx)).toBe(2);
    expect(c.stderr()).toContain(
      'mooring diff: MOORING_E_CONFIG_INVALID: --concurrency (MOORING_CONCURRENCY): must be a whole number (got "x")',
    );
  });
});
