import { describe, expect, it } from 'vitest';
import { debugDetailLogger } from '../src/log.ts';
import { capturedLogger } from './kube/sandbox.ts';

describe("debugDetailLogger (a reconcile's own summary line is for debugging)", () => {
  it('writes detail at debug or trace; below that, warnings only', () => {
    const { logger, lines } = capturedLogger();
    expect(debugDetailLogger(logger, 'debug')).toBe(logger);
    expect(debugDetailLogger(logger, 'trace')).toBe(logger);
    const quiet = debugDetailLogger(logger, 'info');
    quiet.info('detail');
    quiet.warn('trouble');
    expect(lines().map((l) => l.msg)).toEqual(['trouble']);
  });
});
