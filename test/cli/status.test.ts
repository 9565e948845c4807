import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { networkInterfaces } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentStatus } from '../../src/agent/agent.ts';
import { formatStatus, status } from '../../src/cli/status.ts';
import { silentLogger } from '../../src/log.ts';
import { createMetrics } from '../../src/ops/metrics.ts';
import { type OpsServer, STATUS_LOOPBACK_ONLY, startOpsServer } from '../../src/ops/server.ts';
import { captureContext } from './helpers.ts';

const NOW = Date.parse('2026-01-01T00:10:00Z');
const DOC: AgentStatus = {
  listenerId: 'l-1',
  identity: 'pod-a',
  version: '1.0.0',
  leader: true,
  dryRun: false,
  lastPollAt: '2026-01-01T00:09:58Z',
  pruneRefused: null,
  deployments: [
    {
      id: 'd-1',
      name: 'alpha',
      namespace: 'team-a',
      revision: '0123456789abcdef',
      controlPlaneStatus: 'READY',
      state: 'Ready',
      reason: null,
      lastAppliedAt: '2026-01-01T00:05:00Z',
      lastReconcileAt: '2026-01-01T00:09:58Z',
      lastChanges: 'unchanged 3',
      paused: [],
    },
    {
      id: 'd-2',
      name: 'beta',
      namespace: 'team-b',
      revision: null,
      controlPlaneStatus: 'READY',
      state: 'Refused',
      reason: 'MOORING_E_RENDER_POLICY: hostPath refused',
      lastAppliedAt: null,
      lastReconcileAt: null,
      lastChanges: null,
      paused: [],
    },
  ],
};

describe('formatStatus', () => {
  it('prints one row per deployment under a header', () => {
    expect(formatStatus(DOC, NOW)).toBe(
      [
        'listener l-1  identity pod-a  version 1.0.0  leader  last poll 2s ago',
        '',
        'NAME   NAMESPACE  STATUS  STATE    REVISION  APPLIED  REASON',
        'alpha  team-a     READY   Ready    01234567  5m ago',
        'beta   team-b     READY   Refused  -         -        MOORING_E_RENDER_POLICY: hostPath refused',
        '',
      ].join('\n'),
    );
  });
});

describe('formatStatus on a sharded listener', () => {
  it('names the shards the replica holds, or none', () => {
    const head = (shards: AgentStatus['shards']) => formatStatus({ ...DOC, shards }, NOW).split('\n')[0];
    expect(head({ total: 6, held: [0, 3] })).toBe(
      'listener l-1  identity pod-a  version 1.0.0  leader  shards 0,3 of 6  last poll 2s ago',
    );
    expect(head({ total: 6, held: [] })).toContain('shards none of 6');
    expect(head({ total: 1, held: [0] })).not.toContain('shards');
  });
});

describe('formatStatus with a refused prune', () => {
  it('says so above the table', () => {
    const text = formatStatus(
      {
        ...DOC,
        pruneRefused: {
          code: 'MOORING_E_PRUNE_CAP_EXCEEDED',
          message: 'prune refused: 80 objects due',
          at: '2026-01-01T00:09:00Z',
        },
      },
      NOW,
    );
    expect(text.split('\n')[2]).toBe(
      'pruning refused since 2026-01-01T00:09:00Z: MOORING_E_PRUNE_CAP_EXCEEDED: prune refused: 80 objects due',
    );
  });
});

describe('mooring status', () => {
  let url = '';
  const server = createServer((req, res) => {
    if (req.url === '/status')
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(DOC));
    else res.writeHead(404).end();
  });
  beforeAll(async () => {
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => {
    server.close();
  });

  it('reads /status from --url and prints the table', async () => {
    const c = captureContext();
    expect(await status(['--url', url], c.ctx)).toBe(0);
    expect(c.stdout()).toContain('alpha  team-a');
  });

  it('fails with one line when the agent cannot be reached', async () => {
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((r) => closed.close(r));
    const c = captureContext();
    expect(await status(['--url', `http://127.0.0.1:${port}`], c.ctx)).toBe(1);
    expect(c.stderr()).toBe(
      `mooring status: MOORING_E_STATUS_UNAVAILABLE: cannot reach http://127.0.0.1:${port}/status (ECONNREFUSED)\n`,
    );
  });

  it('refuses a bad --url with exit 2', async () => {
    const c = captureContext();
    expect(await status(['--url', 'nope'], c.ctx)).toBe(2);
  });
});

/** An IPv4 address of this machine that is not loopback (a pod's IP to the agent), if any. */
const podIp = Object.values(networkInterfaces())
  .flat()
  .find((a) => a && a.family === 'IPv4' && !a.internal)?.address;

describe.skipIf(podIp === undefined)('mooring status against an agent bound to the pod IP', () => {
  let ops: OpsServer;
  beforeAll(async () => {
    const check = { ok: true, checks: {} };
    ops = await startOpsServer({
      host: podIp!,
      port: 0,
      registry: createMetrics({ version: 'test' }).registry,
      health: () => check,
      ready: () => check,
      status: () => DOC,
      logger: silentLogger(),
    });
  });
  afterAll(async () => {
    await ops?.close();
  });

  it('prints the table through 127.0.0.1, where kubectl port-forward and exec arrive', async () => {
    const c = captureContext();
    expect(await status(['--url', `http://127.0.0.1:${ops.port}`], c.ctx)).toBe(0);
    expect(c.stdout()).toContain('alpha  team-a');
  });

  it('says why when asked from elsewhere (the 403 and its detail)', async () => {
    const c = captureContext();
    expect(await status(['--url', ops.url], c.ctx)).toBe(1);
    expect(c.stderr()).toBe(
      `mooring status: MOORING_E_STATUS_UNAVAILABLE: ${ops.url}/status answered 403: ${STATUS_LOOPBACK_ONLY}\n`,
    );
  });
});
