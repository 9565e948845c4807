import { EXIT, type CliContext } from './context.ts';

/** `mooring sandbox`: not built yet (see the open issues). */
export async function sandbox(_argv: string[], ctx: CliContext): Promise<number> {
  ctx.stderr.write('mooring sandbox: not implemented yet\n');
  return EXIT.failure;
}
