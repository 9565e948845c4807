import { type DestinationStream, type Logger, pino } from 'pino';
import { fieldRedactor } from './log-redact.ts';
import type { Scrubber } from './redact.ts';

/** A scrubber that can tell a JSON log line's values from its structure (the agent's `Redactor`). */
type LineScrubber = Scrubber & { scrubJsonLine?: (line: string) => string };

export type { Logger } from 'pino';

/**
 * Paths pino censors wherever they appear in a log object. Secret values and the API key must
 * never reach a log line; this is the structural guard, the redactor in `redact.ts` is the textual
 * one (given as `scrubber`, it sees every finished line, whatever its level).
 */
export const REDACT_PATHS = [
  'apiKey',
  '*.apiKey',
  'api_key',
  'headers["x-api-key"]',
  '*.headers["x-api-key"]',
  'req.headers["x-api-key"]',
  'authorization',
  '*.authorization',
  'headers.authorization',
  '*.headers.authorization',
  'secrets[*].value',
  '*.secrets[*].value',
  '*.*.secrets[*].value',
  'value',
  'stringData',
  '*.stringData',
  'data',
  '*.data',
  'password',
  '*.password',
  'token',
  '*.token',
];

export interface LoggerOptions {
  level?: string;
  /** Where lines go; defaults to stdout. Tests pass a stream to read lines back. */
  destination?: DestinationStream;
  /** Fixed fields on every line (component, listener id). */
  base?: Record<string, unknown>;
  /**
   * Scrubs every finished line before it is written (the agent's `Redactor`): a known secret
   * value is replaced whatever field, message or level carries it, in its JSON-escaped form too.
   */
  scrubber?: LineScrubber;
}

/** The structural guard of every line: `REDACT_PATHS` censored in a line's fields and in its bindings. */
const redactFields = fieldRedactor(REDACT_PATHS, '[redacted]');

/** Creates a pino JSON logger with redaction. There is no module-level logger: inject this one. */
export function createLogger(options: LoggerOptions = {}): Logger {
  const { scrubber } = options;
  const logger = pino(
    {
      // The last step of every line, children's included: nothing written bypasses it.
      // Inside values only, where the scrubber can tell them apart: a record's "secret" must not
      // rewrite another line's level, code, state or keys.
      ...(scrubber
        ? {
            hooks: {
              streamWrite: scrubber.scrubJsonLine
                ? (line: string) => scrubber.scrubJsonLine!(line)
                : (line: string) => scrubber.scrub(line),
            },
          }
        : {}),
      level: options.level ?? 'info',
      base: options.base ?? {},
      timestamp: pino.stdTimeFunctions.isoTime,
      // In place of pino's `redact`, which parses its paths again for each field of each line.
      formatters: { level: (label) => ({ level: label }), log: redactFields, bindings: redactFields },
    },
    options.destination ?? pino.destination({ fd: 1, sync: false }),
  );
  // pino gives a child's bindings no formatter: they are censored here, for children of children
  // too (each is made from its parent by `Object.create`, so it inherits this member).
  const child = logger.child;
  logger.child = function (this: Logger, bindings, childOptions) {
    return child.call(this, redactFields(bindings), childOptions);
  } as typeof child;
  return logger;
}

/** A logger that writes nothing, for tests and library use. */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}

/**
 * A logger for detail that only debugging wants (a reconcile's own summary line: the agent logs
 * one line per reconcile itself): `logger` at debug or trace, else one that says warnings only.
 */
export function debugDetailLogger(logger: Logger, level: string): Logger {
  return level === 'debug' || level === 'trace' ? logger : logger.child({}, { level: 'warn' });
}
