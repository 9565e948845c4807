import { EXIT, type CliContext } from './context.ts';

/** `mooring status`: not built yet (see the open issues). */
export async function status(_argv: string[], ctx: CliContext): Promise<number> {
  ctx.stderr.write('mooring status: not implemented yet\n');
  return EXIT.failure;
}
