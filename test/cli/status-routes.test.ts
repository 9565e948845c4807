import { describe, expect, it } from 'vitest';
import type { AgentStatus } from '../../src/agent/agent.ts';
import { formatStatus } from '../../src/cli/status.ts';

const DOC: AgentStatus = {
  listenerId: 'l-1',
  identity: 'pod-a',
  version: '1.0.0',
  leader: true,
  dryRun: false,
  lastPollAt: null,
  pruneRefused: null,
  deployments: [],
};

describe('mooring status and the routes', () => {
  it('says how the control plane and the API server are reached', () => {
    const text = formatStatus(
      {
        ...DOC,
        routes: {
          controlPlane: {
            via: 'http://proxy.corp:3128',
            ca: '/etc/mooring/control-plane-ca/ca.crt',
            clientCertificate: true,
          },
          kubernetes: { via: 'direct' },
        },
      },
      0,
    );
    expect(text).toContain(
      'control plane through http://proxy.corp:3128 (CA /etc/mooring/control-plane-ca/ca.crt, client certificate); Kubernetes API direct\n',
    );
  });

  it('prints no routes line for an agent that reports none', () => {
    expect(formatStatus(DOC, 0)).not.toContain('control plane');
  });
});
