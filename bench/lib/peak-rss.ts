/**
 * A measured client's own peak resident memory, read in the client's process (the floors' children
 * report theirs this way). Kept out of figures.ts, which does no I/O, and of agent-process.ts,
 * whose imports a measured child would then load.
 */
import { readFileSync } from 'node:fs';

/** This process's peak resident memory (VmHWM) from /proc, MiB (null where there is none). */
export function peakRssMib(): number | null {
  try {
    const m = /^VmHWM:\s+(\d+)\s+kB/m.exec(readFileSync('/proc/self/status', 'utf8'));
    return m ? Number(m[1]) / 1024 : null;
  } catch {
    return null;
  }
}
