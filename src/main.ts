/**
 * The composition root: the only reader of `process.env` and the only caller of `process.exit`.
 */
import { COMMANDS, usage } from './cli/index.ts';
import { EXIT, type CliContext } from './cli/context.ts';
import { VERSION } from './version.ts';

export async function main(argv: string[]): Promise<void> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(usage(VERSION));
    process.exit(name ? EXIT.ok : EXIT.usage);
  }
  if (name === '--version' || name === 'version') {
    process.stdout.write(`${VERSION}\n`);
    process.exit(EXIT.ok);
  }
  const entry = COMMANDS[name];
  if (!entry) {
    process.stderr.write(`mooring: MOORING_E_INPUT_INVALID: unknown command "${name}"\n\n${usage(VERSION)}`);
    process.exit(EXIT.usage);
  }

  const controller = new AbortController();
  let signals = 0;
  const onSignal = (sig: NodeJS.Signals) => {
    signals += 1;
    if (signals > 1) {
      process.stderr.write(`mooring: second ${sig}, exiting now\n`);
      process.exit(130);
    }
    controller.abort(new Error(`received ${sig}`));
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);

  const ctx: CliContext = {
    env: { ...process.env },
    stdout: process.stdout,
    stderr: process.stderr,
    signal: controller.signal,
    cwd: process.cwd(),
    version: VERSION,
  };
  let code: number;
  try {
    const command = await entry.load();
    code = await command(rest, ctx);
  } catch (err) {
    const e = err as { code?: string; message?: string };
    // Every CLI error line carries a code; one thrown without a mooring code is a bug.
    const errorCode =
      typeof e.code === 'string' && e.code.startsWith('MOORING_E_') ? e.code : 'MOORING_E_INTERNAL';
    process.stderr.write(`mooring ${name}: ${errorCode}: ${e.message ?? String(err)}\n`);
    code = EXIT.failure;
  }
  // Let buffered stdout drain before exiting.
  process.stdout.write('', () => process.exit(code));
}
