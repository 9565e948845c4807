import { EXIT, type CliContext } from './context.ts';

/** `mooring render`: not built yet (see the open issues). */
export async function render(_argv: string[], ctx: CliContext): Promise<number> {
  ctx.stderr.write('mooring render: not implemented yet\n');
  return EXIT.failure;
}
