/** The `--help` text of the agent settings, generated from the one table. */
import { formatHelp, type HelpFlag } from '../cli/help-format.ts';
import { SETTINGS } from './settings-table.ts';

export interface ConfigHelpOptions {
  /** Keys of the settings the command reads; absent: all. The others are accepted and ignored. */
  reads?: ReadonlySet<string> | undefined;
  /** The command's own flags, listed first. */
  flags?: readonly HelpFlag[] | undefined;
}

/** The `--help` text of a command taking the agent settings, generated from `SETTINGS`. */
export function configHelp(command: string, summary: string, options: ConfigHelpOptions = {}): string {
  const listed = SETTINGS.filter((s) => options.reads?.has(s.key) ?? true);
  const flags: HelpFlag[] = listed.map((s) => ({
    left: s.kind === 'bool' ? `--${s.flag}, --no-${s.flag}` : `--${s.flag} <${s.unit ?? 'value'}>`,
    description: [s.description, `env ${s.env}; default: ${s.defaultText}${s.unit ? ` (${s.unit})` : ''}`],
  }));
  const notes = [
    'Every flag has an environment twin; a flag wins over its variable. Booleans accept true/false, 1/0, yes/no in the environment.',
  ];
  if (options.reads) {
    notes.push(
      `Every other flag and variable of mooring run is accepted and ignored, so mooring ${command} runs with the agent's own arguments and environment.`,
    );
  }
  return formatHelp({
    usage: `mooring ${command} [flags]`,
    summary,
    notes,
    flags: [...(options.flags ?? []), ...flags],
  });
}
