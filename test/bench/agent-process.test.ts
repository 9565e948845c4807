import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { AgentProcess } from '../../bench/lib/agent-process.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));

describe('AgentProcess', () => {
  it('has no peak memory or CPU time to report for an agent that died before it was sampled', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'mooring-agent-process-'));
    const agent = new AgentProcess({
      root,
      args: [],
      logFile: path.join(dir, 'agent.log'),
      nodeFlags: ['--no-such-node-flag'],
      sampleIntervalMs: 60_000,
    });
    expect(await agent.exited).not.toBe(0);
    expect(agent.peakRssMib).toBeNull();
    expect(agent.cpuSeconds()).toBeNull();
  });
});
