import { parseSettingsText, type RenderSettingsFile } from './render/settings-file.ts';

/**
 * Reads and parses the agent's `--settings` file with the parser `mooring render --settings` uses.
 * Problems are appended one per line, prefixed with `flag` and the path; they name the member,
 * never a value. No file: no settings ({}).
 */
export function readSettingsFile(
  path: string | undefined,
  flag: string,
  read: (path: string) => string,
  problems: string[],
): RenderSettingsFile {
  if (path === undefined) return {};
  const where = `${flag}: "${path}"`;
  let text: string;
  try {
    text = read(path);
  } catch (err) {
    problems.push(`${where}: cannot be read (${(err as { code?: string }).code ?? 'unreadable'})`);
    return {};
  }
  const parsed = parseSettingsText(text);
  if (parsed.ok) return parsed.settings;
  for (const p of parsed.problems) problems.push(`${where}: ${p}`);
  return {};
}
