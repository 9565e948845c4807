/**
 * Where the agent's CPU time went: a summary of a V8 `.cpuprofile` (from `--cpu-prof`) by self
 * time, grouped by npm package / Node internal module / our file, and by function.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}

interface CpuProfile {
  nodes: { id: number; callFrame: CallFrame }[];
  samples: number[];
  timeDeltas: number[];
}

/** The group a frame's self time is counted under. */
export function groupOf(frame: CallFrame): string {
  const url = frame.url;
  if (url === '')
    return frame.functionName.startsWith('(') ? frame.functionName : `(native ${frame.functionName})`;
  const nm = url.lastIndexOf('node_modules/');
  if (nm >= 0) {
    const rest = url.slice(nm + 'node_modules/'.length).split('/');
    return rest[0]?.startsWith('@') ? `${rest[0]}/${rest[1]}` : (rest[0] ?? url);
  }
  if (url.startsWith('node:')) return url;
  const src = url.indexOf('/src/');
  return src >= 0 ? url.slice(src + 1) : url;
}

export interface ProfileSummary {
  totalMs: number;
  byGroup: [string, number][];
  byFunction: [string, number][];
}

/** Self time (ms) per group and per function, largest first. */
export function summarizeProfile(profile: CpuProfile, top = 20): ProfileSummary {
  const frames = new Map(profile.nodes.map((n) => [n.id, n.callFrame]));
  const groups = new Map<string, number>();
  const functions = new Map<string, number>();
  let total = 0;
  profile.samples.forEach((id, i) => {
    const us = profile.timeDeltas[i] ?? 0;
    const frame = frames.get(id);
    if (!frame) return;
    total += us;
    const group = groupOf(frame);
    groups.set(group, (groups.get(group) ?? 0) + us);
    const fn = `${frame.functionName || '(anonymous)'} ${group}:${frame.lineNumber + 1}`;
    functions.set(fn, (functions.get(fn) ?? 0) + us);
  });
  const sorted = (m: Map<string, number>) =>
    [...m.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([k, v]) => [k, Math.round(v / 1000)] as [string, number]);
  return { totalMs: Math.round(total / 1000), byGroup: sorted(groups), byFunction: sorted(functions) };
}

/** A text report of a summary. */
export function formatSummary(s: ProfileSummary): string {
  const pct = (ms: number) => `${((100 * ms) / Math.max(1, s.totalMs)).toFixed(1).padStart(5)}%`;
  const lines = (rows: [string, number][]) =>
    rows.map(([k, ms]) => `${String(ms).padStart(8)} ms ${pct(ms)}  ${k}`);
  return [
    `profiled ${s.totalMs} ms (idle included)`,
    '',
    'self time by package / module:',
    ...lines(s.byGroup),
    '',
    'self time by function:',
    ...lines(s.byFunction),
    '',
  ].join('\n');
}

/** Summarizes every `.cpuprofile` in `dir`; returns the text (empty when there is none). */
export function summarizeDir(dir: string): string {
  let files: string[];
  try {
    files = readdirSync(dir).filter((f) => f.endsWith('.cpuprofile'));
  } catch {
    return '';
  }
  return files
    .map(
      (f) =>
        `# ${f}\n${formatSummary(summarizeProfile(JSON.parse(readFileSync(path.join(dir, f), 'utf8'))))}`,
    )
    .join('\n');
}
