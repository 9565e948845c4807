/**
 * `--poll-interval -5`: node's parseArgs takes a value that starts with a dash for a flag of its
 * own and refuses the pair as "ambiguous". A number is never a flag, so such a pair is joined
 * (`--poll-interval=-5`) and the value then meets the flag's own check, with its coded message.
 */

const NEGATIVE_NUMBER = /^-\d/;

/**
 * `argv` with each `--flag -<number>` joined into `--flag=-<number>`, for the flags in
 * `valueFlags` (those that take a value; short ones are given without dashes too, e.g. `o`).
 */
export function joinNegativeValues(argv: readonly string[], valueFlags: ReadonlySet<string>): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const next = argv[i + 1];
    const name = arg.replace(/^--?/, '');
    if (
      arg.startsWith('-') &&
      !arg.includes('=') &&
      valueFlags.has(name) &&
      next &&
      NEGATIVE_NUMBER.test(next)
    ) {
      out.push(`${arg}=${next}`);
      i++;
    } else out.push(arg);
  }
  return out;
}
