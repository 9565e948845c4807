import { EXIT, type CliContext } from './context.ts';

/** `mooring control-plane`: not built yet (see the open issues). */
export async function controlPlane(_argv: string[], ctx: CliContext): Promise<number> {
  ctx.stderr.write('mooring control-plane: not implemented yet\n');
  return EXIT.failure;
}
