/**
 * Record names reach the operator's terminal through `mooring status` and `mooring diff`: a name
 * holding ESC, CR, BEL, an OSC sequence (window title, hyperlink), a C1 CSI or a bidirectional
 * override is printed with each shown as a visible escape, through the real programs.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO } from '../support/agent-process.ts';
import { waitFor } from '../support/wait.ts';
import { deploymentBody, type Stack, spawnAgent, startStack } from './harness.ts';

/** A name that, printed raw, sets the window title, hides a link, erases a line and reorders text. */
const HOSTILE =
  'shop\u001b]0;owned\u0007\u001b]8;;http://evil.example/\u0007x\u001b]8;;\u0007\r\u001b[2Kfake\u009b31m\u202eevil\n';
/** Every control character (C0 but the line breaks the programs print, DEL, C1) and bidi override. */
const RAW = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

const mooring = (args: string[], env: Record<string, string>) =>
  promisify(execFile)(
    path.join(REPO, 'node_modules', '.bin', 'node'),
    [path.join(REPO, 'bin', 'mooring.js'), ...args],
    {
      cwd: REPO,
      env,
      timeout: 60_000,
    },
  );

describe('record names in terminal output (control plane + sandbox + agent + CLI)', {
  timeout: 60_000,
}, () => {
  let stack: Stack;

  beforeAll(async () => {
    stack = await startStack();
    await stack.client.createDeployment(deploymentBody(HOSTILE, 'registry.example/shop:1'));
  }, 60_000);

  afterAll(async () => {
    await stack?.close();
  });

  it('mooring diff prints the name with its control characters escaped, on one line', async () => {
    const { stdout } = await mooring(['diff'], stack.agentEnv());
    expect(stdout).toContain('shop\\x1b]0;owned\\x07');
    expect(stdout).not.toMatch(RAW);
    expect(stdout.split('\n').filter((l) => l.includes('shop\\x1b'))).toHaveLength(1);
  });

  it('mooring status prints the name with its control characters escaped, in one row; --json too', async () => {
    const agent = spawnAgent(stack.agentEnv());
    try {
      await waitFor(
        'a verdict',
        async () =>
          (await agent.json<{ deployments: { state: string }[] }>('/status')).deployments[0]?.state !==
          undefined,
        30_000,
      );
      const url = await agent.opsUrl;
      const table = (await mooring(['status', '--url', url], stack.agentEnv())).stdout;
      expect(table).toContain('shop\\x1b]0;owned\\x07');
      expect(table).toContain('\\u202eevil\\x0a');
      expect(table).not.toMatch(RAW);
      const json = (await mooring(['status', '--url', url, '--json'], stack.agentEnv())).stdout;
      expect(json).not.toMatch(RAW);
      expect(JSON.parse(json).deployments[0].name).toBe(HOSTILE);
    } finally {
      await agent.stop();
    }
  });
});
