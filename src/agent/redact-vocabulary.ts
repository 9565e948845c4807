/**
 * The agent's own words, which no record may register as a secret value: error codes, deployment
 * states and log level names. Scrubbing one would change what every other deployment's
 * diagnostics say (a `[redacted]` state in `/status`, a reason without its code), and none of them
 * is a secret.
 */
import { ERROR_CODES } from '../errors.ts';
import { DEPLOYMENT_STATES } from './status.ts';

const LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'];
const WORDS: ReadonlySet<string> = new Set([...Object.keys(ERROR_CODES), ...DEPLOYMENT_STATES, ...LEVELS]);
/** Every code starts so: a value holding one would cut codes out of others' reasons. */
const CODE_PREFIX = 'MOORING_E_';

/** Whether `value` is (or holds an error code of) the agent's vocabulary. */
export function isAgentVocabulary(value: string): boolean {
  return WORDS.has(value) || value.includes(CODE_PREFIX);
}
