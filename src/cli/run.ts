import { EXIT, type CliContext } from './context.ts';

/** `mooring run`: not built yet (see the open issues). */
export async function run(_argv: string[], ctx: CliContext): Promise<number> {
  ctx.stderr.write('mooring run: not implemented yet\n');
  return EXIT.failure;
}
