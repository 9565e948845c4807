import { type DestinationStream, type Logger, pino } from 'pino';

export type { Logger } from 'pino';

/**
 * Paths pino censors wherever they appear in a log object. Secret values and the API key must
 * never reach a log line; this is the structural guard, the redactor in `redact.ts` is the textual one.
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
}

/** Creates a pino JSON logger with redaction. There is no module-level logger: inject this one. */
export function createLogger(options: LoggerOptions = {}): Logger {
  return pino(
    {
      level: options.level ?? 'info',
      base: options.base ?? {},
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
    },
    options.destination ?? pino.destination({ fd: 1, sync: false }),
  );
}

/** A logger that writes nothing, for tests and library use. */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
