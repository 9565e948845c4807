import { describe, expect, it } from 'vitest';
import { parseManners } from '../../bench/lib/agent-metrics.ts';

describe('parseManners', () => {
  it('reads the rate-limiter and Retry-After waits and the 429s from /metrics text', () => {
    const text = [
      '# TYPE mooring_kube_wait_seconds_total counter',
      'mooring_kube_wait_seconds_total{reason="rate_limiter"} 1.2345',
      'mooring_kube_wait_seconds_total{reason="retry_after"} 3',
      'mooring_kube_requests_total{verb="list",result="429"} 2',
      'mooring_kube_requests_total{verb="apply",result="429"} 1',
      'mooring_kube_requests_total{verb="apply",result="200"} 40',
    ].join('\n');
    expect(parseManners(text)).toEqual({ rate_limiter_wait_s: 1.235, retry_after_wait_s: 3, status_429: 3 });
  });

  it('counts 0 for what the agent has not exported yet', () => {
    expect(parseManners('mooring_kube_requests_total{verb="list",result="200"} 5')).toEqual({
      rate_limiter_wait_s: 0,
      retry_after_wait_s: 0,
      status_429: 0,
    });
  });
});
