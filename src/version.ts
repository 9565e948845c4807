import { readFileSync } from 'node:fs';

/** mooring's version, from package.json (read once). */
export const VERSION: string = (
  JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }
).version;
