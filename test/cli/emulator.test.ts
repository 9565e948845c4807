import { describe, expect, it } from 'vitest';
import {
  EMULATOR_PACKAGES,
  emulatorInstallCommand,
  loadEmulator,
  missingEmulatorPackages,
} from '../../src/cli/emulator.ts';

/** A resolver for an install without the given packages (as `npm ci --omit=dev` leaves it). */
function without(...absent: string[]) {
  return (specifier: string) => {
    if (absent.includes(specifier))
      throw Object.assign(new Error(`Cannot find package '${specifier}'`), {
        code: 'ERR_MODULE_NOT_FOUND',
      });
    return import.meta.resolve(specifier);
  };
}

describe('the emulator loader', () => {
  it('finds every emulator package in a development install', () => {
    expect(missingEmulatorPackages()).toEqual([]);
  });

  it('names the missing packages and how to install them, with a code', async () => {
    const err = await loadEmulator(without('kubernetes-models', 'fast-json-patch')).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'MOORING_E_EMULATOR_MISSING' });
    const message = (err as Error).message;
    expect(message).toContain('(fast-json-patch, kubernetes-models)');
    expect(message).toContain(emulatorInstallCommand());
  });

  it('installs every emulator package at the version this release pins', () => {
    const command = emulatorInstallCommand();
    for (const name of EMULATOR_PACKAGES) expect(command).toMatch(new RegExp(`'${name}@[\\^~]?\\d`));
  });

  it('loads the sandbox API when everything is there', async () => {
    const api = await loadEmulator();
    expect(typeof api.startKubeApi).toBe('function');
  });
});
