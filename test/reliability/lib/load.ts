/**
 * The reference control plane under load: a server in this process, seeded with 50 deployments,
 * and autocannon in a child process sending mixed reads and writes at a fixed rate.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { promisify } from 'node:util';
import { ControlPlaneClient } from '../../../src/control-plane/client.ts';
import { startControlPlane } from '../../../src/control-plane/server/index.ts';
import { REPO } from '../../support/agent-process.ts';

const run = promisify(execFile);

export interface LoadResult {
  total: number;
  averagePerSecond: number;
  latency: { p50: number; p90: number; p99: number; max: number };
  errors: number;
  timeouts: number;
  non2xx: number;
  status5xx: number;
  statusCodes: Record<string, number>;
  /** Requests the server counted (its own view). */
  serverRequests: number;
}

export async function loadControlPlane(o: {
  durationSeconds: number;
  ratePerSecond: number;
}): Promise<LoadResult> {
  const apiKey = randomBytes(16).toString('hex');
  const listenerId = '44444444-4444-4444-8444-444444444444';
  const cp = await startControlPlane({
    apiKey,
    seed: {
      listeners: [
        {
          id: listenerId,
          compute_type: 'k8s',
          compute_id: 'load',
          compute_config: { k8s_namespaces: ['apps'] },
        },
      ],
    },
  });
  const client = new ControlPlaneClient({ baseUrl: cp.url, apiKey });
  try {
    const targets: { id: string; revisionId: string }[] = [];
    for (let i = 0; i < 50; i++) {
      const d = await client.createDeployment({
        name: `load-app-${i}`,
        source: 'external_docker',
        source_config: {
          listener_id: listenerId,
          listener_config: { k8s_namespace: 'apps' },
          resource_spec: { min_scale: 1, max_scale: 3, cpu: 0.5, memory_mb: 256 },
        },
        source_revision_config: { image_uri: 'registry.example.com/load/app:0' },
        secrets: [{ name: 'TOKEN', value: `t-${i}` }],
      });
      targets.push({ id: d.id, revisionId: d.latest_revision_id as string });
    }
    cp.resetStats();
    const plan = {
      url: cp.url,
      apiKey,
      durationSeconds: o.durationSeconds,
      ratePerSecond: o.ratePerSecond,
      connections: 20,
      targets,
    };
    const { stdout } = await run(
      path.join(REPO, 'node_modules', '.bin', 'node'),
      [path.join(REPO, 'test', 'reliability', 'lib', 'load-runner.ts'), JSON.stringify(plan)],
      { cwd: REPO, timeout: (o.durationSeconds + 60) * 1000, maxBuffer: 1 << 20 },
    );
    const result = JSON.parse(stdout.trim().split('\n').pop() ?? '{}') as Omit<LoadResult, 'serverRequests'>;
    return { ...result, serverRequests: cp.stats().requests };
  } finally {
    await client.close();
    await cp.close();
  }
}
