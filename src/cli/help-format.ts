/**
 * The one style of every command's `--help`: a usage line, the summary wrapped, then each flag with
 * its description (and default) wrapped in a column, no line over `HELP_WIDTH` columns.
 */

/** No help line is wider than this. */
export const HELP_WIDTH = 100;

/** One flag as help lists it. */
export interface HelpFlag {
  /** `--port <port>`, `--once`, `-o, --output <format>`. */
  left: string;
  /** One paragraph, or several each starting a line (a setting's environment twin and default). */
  description: string | readonly string[];
}

/** `text` wrapped at word boundaries into lines of at most `width` columns. */
export function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/).filter((w) => w !== '')) {
    if (line !== '' && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line === '' ? word : `${line} ${word}`;
  }
  if (line !== '') lines.push(line);
  return lines;
}

/** A command's help text (see the module comment). `notes` are paragraphs after the summary. */
export function formatHelp(o: {
  usage: string;
  summary: string;
  notes?: readonly string[];
  flags: readonly HelpFlag[];
}): string {
  const flags = [...o.flags, { left: '-h, --help', description: 'print this text' }];
  const left = Math.min(Math.max(...flags.map((f) => f.left.length)), 36);
  const indent = ' '.repeat(2 + left + 2);
  const lines = [`Usage: ${o.usage}`, '', ...wrap(o.summary, HELP_WIDTH)];
  for (const note of o.notes ?? []) lines.push('', ...wrap(note, HELP_WIDTH));
  lines.push('', 'Flags:');
  for (const f of flags) {
    const paragraphs = typeof f.description === 'string' ? [f.description] : f.description;
    const body = paragraphs.flatMap((p) => wrap(p, HELP_WIDTH - indent.length));
    if (f.left.length > left) lines.push(`  ${f.left}`, ...body.map((l) => indent + l));
    else {
      lines.push(`  ${f.left.padEnd(left)}  ${body[0] ?? ''}`);
      for (const l of body.slice(1)) lines.push(indent + l);
    }
  }
  return `${lines.join('\n')}\n`;
}
