/** `mooring kube-api`: flags, usage errors, and serving until the context's signal aborts. */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { CliContext } from '../../src/cli/context.ts';
import { kubeApi } from '../../src/cli/kube-api.ts';

function context(signal: AbortSignal): { ctx: CliContext; out: () => string; err: () => string } {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (c: Buffer) => {
    out += c.toString();
  });
  stderr.on('data', (c: Buffer) => {
    err += c.toString();
  });
  const ctx: CliContext = {
    env: { MOORING_LOG_LEVEL: 'silent' },
    stdout,
    stderr,
    signal,
    cwd: process.cwd(),
    version: '0.0.0-test',
  };
  return { ctx, out: () => out, err: () => err };
}

describe('mooring kube-api', () => {
  it('--help lists every flag with its default', async () => {
    const c = context(new AbortController().signal);
    expect(await kubeApi(['--help'], c.ctx)).toBe(0);
    for (const flag of ['--host', '--port', '--kubeconfig-out', '--namespaces', '--rollout-delay-ms'])
      expect(c.out()).toContain(flag);
  });

  it('bad flags print one line per problem and exit 2', async () => {
    const c = context(new AbortController().signal);
    expect(await kubeApi(['--port', '99999', '--namespaces', 'ok,Not_OK'], c.ctx)).toBe(2);
    expect(c.err().trim().split('\n')).toEqual([
      'mooring kube-api: MOORING_E_INPUT_INVALID: --port must be an integer 0..65535, got "99999"',
      'mooring kube-api: MOORING_E_INPUT_INVALID: --namespaces: "Not_OK" is not a valid namespace name',
    ]);
    const unknown = context(new AbortController().signal);
    expect(await kubeApi(['--bogus'], unknown.ctx)).toBe(2);
  });

  it('serves, writes the kubeconfig, and exits 0 when the signal aborts', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'mooring-kube-api-cli-'));
    const file = path.join(dir, 'kubeconfig');
    const abort = new AbortController();
    const c = context(abort.signal);
    const running = kubeApi(['--kubeconfig-out', file, '--namespaces', 'team'], c.ctx);
    for (let i = 0; i < 100 && !c.out().includes('kubeconfig written'); i++)
      await new Promise((r) => setTimeout(r, 20));
    expect(c.out()).toMatch(/listening on https:\/\/127\.0\.0\.1:\d+/);
    expect(existsSync(file)).toBe(true);
    expect(readFileSync(file, 'utf8')).toContain('certificate-authority-data');
    abort.abort();
    expect(await running).toBe(0);
    rmSync(dir, { recursive: true, force: true });
  });
});
