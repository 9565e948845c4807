/** The shape of one row of the settings table: a flag, its environment twin, and how it parses. */

/** How a raw string becomes a value. */
export type Kind =
  | 'string'
  | 'url'
  | 'uuid'
  | 'list'
  | 'seconds'
  | 'int'
  | 'rate'
  | 'port'
  | 'bool'
  | 'level'
  | 'names'
  | 'tenants'
  | 'podSecurity'
  | 'volumeTypes'
  | 'objectName';

export interface Setting {
  /** Key in `AgentConfig` (before unit conversion). */
  key: string;
  flag: string;
  env: string;
  kind: Kind;
  /** The default as text for `--help` (also parsed when `value` is absent). */
  defaultText: string;
  /** The default as a raw string, when there is a literal one. */
  value?: string;
  unit?: string;
  description: string;
  /** Never echo the value in problems. */
  secret?: boolean;
}
