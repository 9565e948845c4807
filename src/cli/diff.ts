import { EXIT, type CliContext } from './context.ts';

/** `mooring diff`: not built yet (see the open issues). */
export async function diff(_argv: string[], ctx: CliContext): Promise<number> {
  ctx.stderr.write('mooring diff: not implemented yet\n');
  return EXIT.failure;
}
