/**
 * The flags of the commands that take the agent's settings (`run`, `diff`, `check`): the settings
 * of the one table, plus a command's own few (`--verbose`, `-o`), and the help listing only the
 * settings the command reads.
 */
import { type AgentConfig, configHelp, parseAgentConfig, SETTINGS } from '../config.ts';
import type { HelpFlag } from './help-format.ts';
import { writeCliError } from './cli-error.ts';
import type { ErrorCode } from '../errors.ts';
import { EXIT, type CliContext } from './context.ts';

/** What the agent settings' command may take besides the settings. */
export interface OwnFlags {
  /** `--verbose` (diff). */
  verbose?: boolean;
  /** `-o, --output text|json` (check). */
  output?: boolean;
}

/** The settings `mooring diff` reads: not the ops server, the Lease, the poll loop or shutdown. */
export const DIFF_IGNORES: ReadonlySet<string> = new Set([
  'pollInterval',
  'resyncInterval',
  'watch',
  'heartbeatInterval',
  'opsHost',
  'opsPort',
  'leaderElection',
  'leaseName',
  'leaseNamespace',
  'leaseDuration',
  'shards',
  'restartMemo',
  'identity',
  'shutdownGracePeriod',
  'dryRun',
]);

/** The settings `mooring check` reads. */
export const CHECK_READS: ReadonlySet<string> = new Set([
  'controlPlaneUrl',
  'apiKey',
  'apiKeyFile',
  'controlPlaneCaFile',
  'controlPlaneClientCertFile',
  'controlPlaneClientKeyFile',
  'tenantId',
  'listenerId',
  'namespaces',
  'kubeconfig',
  'leaderElection',
  'leaseName',
  'leaseNamespace',
  'shards',
  'restartMemo',
  'deleteVolumes',
  'podSecurity',
  'settings',
]);

/** The settings each such command reads (undefined: all). */
export function settingsRead(command: string): ReadonlySet<string> | undefined {
  if (command === 'check') return CHECK_READS;
  if (command === 'diff') {
    return new Set(SETTINGS.map((s) => s.key).filter((k) => !DIFF_IGNORES.has(k)));
  }
  return undefined;
}

/** A command's own flags as help lists them. */
export function ownHelpFlags(own: OwnFlags): HelpFlag[] {
  const flags: HelpFlag[] = [];
  if (own.verbose) flags.push({ left: '--verbose', description: 'also list unchanged objects' });
  if (own.output) flags.push({ left: '-o, --output <format>', description: 'text (default) or json' });
  return flags;
}

/** Takes a command's own flags out of `argv`; a problem is returned as a line. */
function takeOwn(argv: readonly string[], own: OwnFlags) {
  const rest: string[] = [];
  let verbose = false;
  let output: 'text' | 'json' = 'text';
  const problems: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (own.verbose && a === '--verbose') verbose = true;
    else if (
      own.output &&
      (a === '-o' || a === '--output' || a.startsWith('--output=') || a.startsWith('-o='))
    ) {
      const value = a.includes('=') ? a.slice(a.indexOf('=') + 1) : argv[++i];
      if (value === 'json' || value === 'text') output = value;
      else problems.push(`-o, --output: must be text or json (got "${value ?? ''}")`);
    } else rest.push(a);
  }
  return { rest, verbose, output, problems };
}

/**
 * Parses an agent-settings command's argv: prints help (exit 0) or coded problems (exit 2) and
 * returns the exit code, or returns the settings and the command's own flags.
 */
export function parseAgentCommand(
  command: string,
  summary: string,
  argv: readonly string[],
  ctx: CliContext,
  own: OwnFlags = {},
): number | { config: AgentConfig; verbose: boolean; output: 'text' | 'json' } {
  const { rest, verbose, output, problems } = takeOwn(argv, own);
  const parsed = parseAgentConfig({ argv: rest, env: ctx.env });
  if (parsed.help) {
    ctx.stdout.write(
      configHelp(command, summary, { reads: settingsRead(command), flags: ownHelpFlags(own) }),
    );
    return EXIT.ok;
  }
  const all = [...problems, ...(parsed.ok ? [] : parsed.problems)];
  if (all.length > 0 || !parsed.ok) {
    for (const p of all) {
      // A problem with a code of its own leads with it (config/lease-settings.ts).
      const coded = /^(MOORING_E_[A-Z_]+): (.*)$/s.exec(p);
      if (coded) writeCliError(ctx, command, coded[1] as ErrorCode, coded[2]!);
      else writeCliError(ctx, command, 'MOORING_E_CONFIG_INVALID', p);
    }
    // A hint, not an error: the one line without a code.
    ctx.stderr.write(`mooring ${command}: see mooring ${command} --help\n`);
    return EXIT.usage;
  }
  return { config: parsed.config, verbose, output };
}
