/** `mooring cp` against the reference control plane. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cp } from '../../src/cli/cp.ts';
import { type ControlPlaneServer, startControlPlane } from '../../src/control-plane/server/index.ts';
import { captureContext } from './helpers.ts';

const KEY = 'cp-key-77aa';

describe('mooring cp', () => {
  let server: ControlPlaneServer;
  let dir: string;
  let env: Record<string, string>;

  beforeAll(async () => {
    server = await startControlPlane({ apiKey: KEY });
    dir = mkdtempSync(path.join(tmpdir(), 'mooring-cp-'));
    writeFileSync(path.join(dir, 'key'), `${KEY}\n`);
    env = { MOORING_CONTROL_PLANE_URL: server.url, MOORING_API_KEY_FILE: path.join(dir, 'key') };
  });
  afterAll(async () => {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('listeners create prints the new listener id; deployments list shows none yet', async () => {
    const c = captureContext(env);
    expect(await cp(['listeners', 'create', '--namespaces', 'apps,web'], c.ctx)).toBe(0);
    const id = c.stdout().trim();
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    const listed = captureContext(env);
    expect(await cp(['deployments', 'list'], listed.ctx)).toBe(0);
    expect(listed.stdout()).toBe('NAME  ID  STATUS  NAMESPACE  IMAGE\n');
  });

  it('deployments patch of a deployment that does not exist: coded, exit 2', async () => {
    const c = captureContext(env);
    expect(await cp(['deployments', 'patch', 'nope', '--image', 'x:1'], c.ctx)).toBe(2);
    expect(c.stderr()).toBe('mooring cp: MOORING_E_INPUT_INVALID: no deployment named or with id "nope"\n');
  });

  it('a wrong key: coded, never echoed', async () => {
    const c = captureContext({ MOORING_CONTROL_PLANE_URL: server.url, MOORING_API_KEY: 'wrong-key-9f' });
    expect(await cp(['deployments', 'list'], c.ctx)).toBe(1);
    expect(c.stderr()).toMatch(/^mooring cp: MOORING_E_CP_UNAUTHORIZED: /);
    expect(c.stderr()).not.toContain('wrong-key-9f');
  });

  it('an unknown action: coded, exit 2', async () => {
    const c = captureContext(env);
    expect(await cp(['deployments', 'delete'], c.ctx)).toBe(2);
    expect(c.stderr()).toContain('MOORING_E_INPUT_INVALID: unknown action "deployments delete"');
  });
});
