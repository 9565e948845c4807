/**
 * The sandbox Kubernetes API (`mooring kube-api`, `mooring sandbox`) is for trying and testing
 * mooring, not for running it: its packages are development dependencies, so the agent's image and
 * any `npm ci --omit=dev` install do not carry them. This is the one door to the emulator: it is
 * loaded only here, on demand, and its absence is one clear line rather than a stack trace.
 */
import { readFileSync } from 'node:fs';
import { MooringError } from '../errors.ts';
import type * as KubeApi from '../sandbox/server.ts';
import type { CliContext } from './context.ts';

/** Packages only the emulator imports (development dependencies; a test keeps this list true). */
export const EMULATOR_PACKAGES = [
  '@kubernetes/client-node',
  '@peculiar/x509',
  'fast-json-patch',
  'kubernetes-models',
  'protobufjs',
  'reflect-metadata',
] as const;

/** The emulator packages this install cannot resolve. */
export function missingEmulatorPackages(
  resolve: (specifier: string) => string = import.meta.resolve,
): string[] {
  return EMULATOR_PACKAGES.filter((name) => {
    try {
      resolve(name);
      return false;
    } catch {
      return true;
    }
  });
}

/** The command that installs the emulator's packages at the versions this release was tested with. */
export function emulatorInstallCommand(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    devDependencies?: Record<string, string>;
  };
  const specs = EMULATOR_PACKAGES.map((name) => {
    const range = pkg.devDependencies?.[name];
    return range ? `${name}@${range}` : name;
  });
  return `npm install --no-save ${specs.map((s) => `'${s}'`).join(' ')}`;
}

/**
 * Loads the emulator, or explains why it cannot: a `MooringError` (MOORING_E_EMULATOR_MISSING)
 * naming the missing packages and the install command.
 */
export async function loadEmulator(resolve?: (specifier: string) => string): Promise<typeof KubeApi> {
  const missing = missingEmulatorPackages(resolve);
  if (missing.length > 0) {
    throw new MooringError(
      'MOORING_E_EMULATOR_MISSING',
      `the sandbox Kubernetes API needs development packages this install lacks (${missing.join(', ')}): ` +
        `run it from a clone after \`npm ci\`, or add them with ${emulatorInstallCommand()}`,
    );
  }
  return import('../sandbox/server.ts');
}

/** `loadEmulator` for a command: on a missing package, one coded line on stderr and `undefined`. */
export async function emulatorFor(command: string, ctx: CliContext): Promise<typeof KubeApi | undefined> {
  try {
    return await loadEmulator();
  } catch (err) {
    if (!(err instanceof MooringError) || err.code !== 'MOORING_E_EMULATOR_MISSING') throw err;
    ctx.stderr.write(`mooring ${command}: ${err.code}: ${err.message}\n`);
    return undefined;
  }
}
