/**
 * Parsing the agent's settings from flags and environment (flags win), checking each against its
 * kind and the settings together. Every problem is one line naming the flag and its env twin;
 * secret values (the API key) are never echoed.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import type { Setting } from './setting.ts';
import { SETTINGS } from './settings-table.ts';
import { joinNegativeValues } from './negative-values.ts';
import { leaseProblems } from './lease-settings.ts';
import { KIND_SCHEMAS } from './value-schemas.ts';

export interface ConfigSources {
  argv: readonly string[];
  env: Readonly<Record<string, string | undefined>>;
  /** Reads the API key file; injectable for tests. */
  readFile?: (path: string) => string;
  /** The default identity; injectable for tests. */
  hostname?: () => string;
}

/** The flags and environment parsed and checked (see `parseAgentFlags`). */
export type FlagsResult =
  | { help: true }
  | {
      help: false;
      /** Each setting's parsed value, by key; absent when not set and without a default. */
      values: Record<string, unknown>;
      /** The API key, from the flag or its file. */
      apiKey: string | undefined;
      /** Every problem found, one line each; the caller adds its own. */
      problems: string[];
      /** False when the command line itself could not be read: nothing else was checked. */
      checked: boolean;
    };

/** The flags that take a value (every setting but the booleans). */
const VALUE_FLAGS: ReadonlySet<string> = new Set(
  SETTINGS.filter((s) => s.kind !== 'bool').map((s) => s.flag),
);

function label(s: Setting): string {
  return `--${s.flag} (${s.env})`;
}

/** How problems name the setting `key`: its flag and its env twin. */
export function flagLabel(key: string): string {
  return label(SETTINGS.find((s) => s.key === key)!);
}

/** Collects the raw string of each setting: flags win over the environment. */
function collectRaw(
  argv: readonly string[],
  env: ConfigSources['env'],
): { raw: Map<string, string>; help: boolean; problems: string[] } {
  const options: Record<string, { type: 'string' | 'boolean' }> = { help: { type: 'boolean' } };
  for (const s of SETTINGS) options[s.flag] = { type: s.kind === 'bool' ? 'boolean' : 'string' };
  const raw = new Map<string, string>();
  const problems: string[] = [];
  let values: Record<string, string | boolean | undefined> = {};
  try {
    values = parseArgs({
      args: joinNegativeValues(argv, VALUE_FLAGS),
      options,
      strict: true,
      allowPositionals: false,
      allowNegative: true,
    }).values as Record<string, string | boolean | undefined>;
  } catch (err) {
    // parseArgs names the offending flag in its message; it never contains a flag's value.
    problems.push((err as Error).message.split('\n')[0] ?? String(err));
    return { raw, help: false, problems };
  }
  for (const s of SETTINGS) {
    const fromFlag = values[s.flag];
    const fromEnv = env[s.env];
    if (fromFlag !== undefined) raw.set(s.key, String(fromFlag));
    else if (fromEnv !== undefined && fromEnv !== '') raw.set(s.key, fromEnv);
    else if (s.value !== undefined) raw.set(s.key, s.value);
  }
  return { raw, help: values.help === true, problems };
}

/**
 * Parses the agent settings from flags and environment and checks them together. Returns every
 * problem at once (one line each) rather than stopping at the first, so an operator fixes a
 * manifest in one go; the settings file and the render settings are the caller's (agent-config.ts).
 */
export function parseAgentFlags(sources: ConfigSources): FlagsResult {
  const { raw, help, problems } = collectRaw(sources.argv, sources.env);
  if (help) return { help: true };
  if (problems.length > 0) return { help: false, values: {}, apiKey: undefined, problems, checked: false };

  const values: Record<string, unknown> = {};
  for (const s of SETTINGS) {
    const text = raw.get(s.key);
    if (text === undefined) continue;
    const parsed = KIND_SCHEMAS[s.kind].safeParse(text);
    if (parsed.success) values[s.key] = parsed.data;
    else {
      const why = parsed.error.issues[0]?.message ?? 'is invalid';
      problems.push(`${label(s)}: ${why}${s.secret ? '' : ` (got "${text}")`}`);
    }
  }
  const setting = (key: string) => SETTINGS.find((s) => s.key === key)!;
  for (const key of ['controlPlaneUrl', 'listenerId', 'namespaces']) {
    if (!raw.has(key)) problems.push(`${label(setting(key))}: is required`);
  }

  const tenants = values.namespaceTenants as Record<string, string> | undefined;
  const namespaceList = values.namespaces as string[] | undefined;
  for (const ns of Object.keys(tenants ?? {})) {
    // A binding for a namespace the agent does not write is a typo that would bind nothing.
    if (namespaceList && !namespaceList.includes(ns))
      problems.push(`${label(setting('namespaceTenants'))}: namespace "${ns}" is not one of --namespaces`);
  }

  let apiKey: string | undefined;
  if (raw.has('apiKey') && raw.has('apiKeyFile')) {
    problems.push('--api-key (MOORING_API_KEY) and --api-key-file (MOORING_API_KEY_FILE): set only one');
  } else if (typeof values.apiKey === 'string') {
    apiKey = values.apiKey;
  } else if (typeof values.apiKeyFile === 'string') {
    const file = values.apiKeyFile;
    try {
      apiKey = (sources.readFile ?? ((p) => readFileSync(p, 'utf8')))(file).trim();
      if (apiKey === '') problems.push(`${label(setting('apiKeyFile'))}: file "${file}" is empty`);
    } catch (err) {
      const code = (err as { code?: string }).code ?? 'unreadable';
      problems.push(`${label(setting('apiKeyFile'))}: cannot read "${file}" (${code})`);
    }
  } else if (!raw.has('apiKey')) {
    problems.push('--api-key-file (MOORING_API_KEY_FILE) or --api-key (MOORING_API_KEY): one is required');
  }

  if (raw.has('controlPlaneClientCertFile') !== raw.has('controlPlaneClientKeyFile')) {
    problems.push(
      `${label(setting('controlPlaneClientCertFile'))} and ${label(setting('controlPlaneClientKeyFile'))}: set both or neither`,
    );
  }
  leaseProblems(values, label(setting('leaseDuration')), label(setting('shards')), problems);
  return { help: false, values, apiKey, problems, checked: true };
}
