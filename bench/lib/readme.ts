/**
 * The "Benchmarks" section at the end of the top-level README: replaced whole by `--readme`, so
 * the README always quotes the latest run and nothing else in it is touched.
 */
import { type BenchResult, formatTable } from './figures.ts';

export const SECTION_HEADING = '## Benchmarks';

/** The section's Markdown for one result. */
export function benchmarkSection(r: BenchResult): string {
  return [
    SECTION_HEADING,
    '',
    `Measured by \`npm run bench -- --deployments ${r.deployments}` +
      `${(r.convergence_rounds?.length ?? 0) > 1 ? ` --rounds ${r.convergence_rounds.length}` : ''}\` on ${r.started_at.slice(0, 10)}` +
      `${r.label ? ` (${r.label})` : ''} ` +
      `(${r.deployments} deployments, ${r.objects} objects, ${r.namespaces} namespaces, poll interval ` +
      `${r.poll_interval_s} s). The control plane and the sandbox Kubernetes API run in the harness ` +
      'process (each on a thread of its own) on the same machine, so their CPU use is shared with the agent. ' +
      (r.memory_limit_mib === null
        ? 'The agent ran with no memory limit. '
        : `The agent ran under a ${r.memory_limit_mib} MiB memory limit (its own cgroup), as the Helm chart runs it. `) +
      'What each figure means: [bench/README.md](bench/README.md).',
    '',
    formatTable(r),
    '',
  ].join('\n');
}

/** Replaces the last "## Benchmarks" section (to the end of the file) or appends one. */
export function updateReadme(readme: string, r: BenchResult): string {
  const at = readme.lastIndexOf(`\n${SECTION_HEADING}\n`);
  const head = at >= 0 ? readme.slice(0, at + 1) : `${readme.replace(/\n*$/, '')}\n\n`;
  return `${head}${benchmarkSection(r)}`;
}
