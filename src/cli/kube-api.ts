import { EXIT, type CliContext } from './context.ts';

/** `mooring kube-api`: not built yet (see the open issues). */
export async function kubeApi(_argv: string[], ctx: CliContext): Promise<number> {
  ctx.stderr.write('mooring kube-api: not implemented yet\n');
  return EXIT.failure;
}
