/**
 * `mooring diff`: one poll and one reconcile per deployment in dry-run (every write is sent with
 * `dryRun=All`, so the API server validates it and persists nothing), then the change set of each
 * deployment. Takes the same settings as `mooring run`; never registers, heartbeats or elects.
 */
import { parseAgentCommand } from './agent-flags.ts';
import type { Agent } from '../agent/agent.ts';
import { describeError } from '../agent/safe-error.ts';
import { agentRedactor } from './agent-settings.ts';
import { wireAgent } from './wiring.ts';
import type { ChangeSetEntry } from '../objects/change-set.ts';
import { summarize } from '../objects/change-set.ts';
import { createLogger } from '../log.ts';
import type { ReconcileResult } from '../reconcile/result.ts';
import { EXIT, type CliContext } from './context.ts';
import { escapeControls as t } from './terminal-text.ts';

const SUMMARY =
  "Print one cycle's change set per deployment against the cluster, writing nothing (dry-run). Takes the settings of mooring run; --verbose also lists unchanged objects.";

const MARK: Record<string, string> = {
  created: '+',
  configured: '~',
  deleted: '-',
  unchanged: '=',
  skipped: '!',
  unknown: '?',
};

function entryLine(e: ChangeSetEntry): string {
  const extra = e.error ? ` ${e.error.code}: ${t(e.error.message)}` : e.note ? ` (${t(e.note)})` : '';
  return `  ${MARK[e.action] ?? '?'} ${t(e.id)} ${e.action}${extra}\n`;
}

/** The report: per deployment its state and the objects that would change. */
export function formatDiff(
  agent: Agent,
  results: ReadonlyMap<string, ReconcileResult>,
  verbose: boolean,
): string {
  let out = '';
  const entries = agent.status.list();
  if (entries.length === 0) return 'no deployments assigned to this listener\n';
  for (const d of entries) {
    const r = results.get(d.id);
    // Record text (names, reasons) is printed with its control characters escaped.
    out += `${t(d.name)} (${t(d.id)}) in ${t(d.namespace ?? '-')}, revision ${t(d.revision ?? '-')}: `;
    if (!r) {
      out += `${d.state}${d.reason ? `: ${t(d.reason)}` : ''}\n`;
      continue;
    }
    out += `${summarize(r.changeSet)}\n`;
    for (const e of r.changeSet.entries) if (verbose || e.action !== 'unchanged') out += entryLine(e);
  }
  return out;
}

export async function diff(argv: string[], ctx: CliContext): Promise<number> {
  const parsed = parseAgentCommand('diff', SUMMARY, argv, ctx, { verbose: true });
  if (typeof parsed === 'number') return parsed;
  const { verbose } = parsed;
  // One cycle: nothing to keep current, so no watch is opened (ADR 0014).
  const config = { ...parsed.config, dryRun: true, leaderElection: false, watch: false };
  // The report, the log and the error lines alike are scrubbed of every known secret value.
  const redactor = agentRedactor(config);
  const stderr = (line: string) => ctx.stderr.write(redactor.scrub(line));
  // Logs go to stderr at warn: stdout is the report.
  const logger = createLogger({
    level: config.logLevel === 'info' ? 'warn' : config.logLevel,
    destination: process.stderr,
    base: { listenerId: config.listenerId },
    scrubber: redactor,
  });
  const results = new Map<string, ReconcileResult>();
  let wired: ReturnType<typeof wireAgent>;
  try {
    wired = wireAgent({
      config,
      env: ctx.env,
      version: ctx.version,
      logger,
      redactor,
      onReconciled: (id, r) => results.set(id, r),
    });
  } catch (err) {
    const { code, message } = describeError(err);
    stderr(`mooring diff: ${code}: ${message}\n`);
    return EXIT.usage;
  }
  try {
    await wired.agent.runOnce(ctx.signal);
  } catch (err) {
    const { code, message } = describeError(err);
    stderr(`mooring diff: ${code}: ${message}\n`);
    return EXIT.failure;
  } finally {
    await wired.close();
  }
  // Change-set entries carry error messages as the API server gave them.
  ctx.stdout.write(redactor.scrub(formatDiff(wired.agent, results, verbose)));
  const failed = wired.agent.status.list().some((d) => d.state === 'Retrying' || d.state === 'Refused');
  return failed ? EXIT.failure : EXIT.ok;
}
