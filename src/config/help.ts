/** The `--help` text of the agent settings, generated from the one table. */
import { SETTINGS } from './settings-table.ts';

/** The `--help` text of a command taking the agent settings, generated from `SETTINGS`. */
export function configHelp(command: string, summary: string): string {
  const rows = SETTINGS.map((s) => {
    const left = s.kind === 'bool' ? `--${s.flag}, --no-${s.flag}` : `--${s.flag} <${s.unit ?? 'value'}>`;
    return { left, s };
  });
  const width = Math.max(...rows.map((r) => r.left.length));
  const lines = rows.map(
    ({ left, s }) =>
      `  ${left.padEnd(width)}  ${s.description}\n  ${''.padEnd(width)}  env ${s.env}; default: ${s.defaultText}${s.unit ? ` (${s.unit})` : ''}`,
  );
  return [
    `Usage: mooring ${command} [flags]`,
    '',
    summary,
    '',
    'Every flag has an environment twin; a flag wins over its variable. Booleans accept',
    'true/false, 1/0, yes/no in the environment.',
    '',
    'Flags:',
    ...lines,
    `  ${'--help'.padEnd(width)}  print this text`,
    '',
  ].join('\n');
}
