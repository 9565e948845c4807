/**
 * apimachinery's format checks (util/validation): each returns the messages the server appends to
 * `Invalid value: ...`, empty when the value is valid. Worded as kube-apiserver words them.
 */

function regexError(message: string, format: string, ...examples: string[]): string {
  if (examples.length === 0) return `${message} (regex used for validation is '${format}')`;
  const shown = examples.map((e) => `'${e}', `).join(' or ');
  return `${message} (e.g. ${shown}regex used for validation is '${format}')`;
}

const maxLen = (n: number): string => `must be no more than ${n} characters`;

const LABEL_1123 = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const SUBDOMAIN = `${LABEL_1123}(\\.${LABEL_1123})*`;
const LABEL_1035 = '[a-z]([-a-z0-9]*[a-z0-9])?';
const KEY_NAME = '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]';
const LABEL_VALUE = `(${KEY_NAME})?`;
const CONFIG_KEY = '[-._a-zA-Z0-9]+';
const PERCENT = '[0-9]+%';

const whole = (format: string): RegExp => new RegExp(`^${format}$`);
const RE_LABEL_1123 = whole(LABEL_1123);
const RE_SUBDOMAIN = whole(SUBDOMAIN);
const RE_LABEL_1035 = whole(LABEL_1035);
const RE_KEY_NAME = whole(KEY_NAME);
const RE_LABEL_VALUE = whole(LABEL_VALUE);
const RE_CONFIG_KEY = whole(CONFIG_KEY);
const RE_PERCENT = whole(PERCENT);

/** IsDNS1123Label. */
export function dns1123Label(value: string): string[] {
  const errs: string[] = [];
  if (value.length > 63) errs.push(maxLen(63));
  if (!RE_LABEL_1123.test(value)) {
    if (RE_SUBDOMAIN.test(value)) errs.push('must not contain dots');
    else
      errs.push(
        regexError(
          "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character",
          LABEL_1123,
          'my-name',
          '123-abc',
        ),
      );
  }
  return errs;
}

/** IsDNS1123Subdomain. */
export function dns1123Subdomain(value: string): string[] {
  const errs: string[] = [];
  if (value.length > 253) errs.push(maxLen(253));
  if (!RE_SUBDOMAIN.test(value))
    errs.push(
      regexError(
        "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character",
        SUBDOMAIN,
        'example.com',
      ),
    );
  return errs;
}

/** IsDNS1035Label. */
export function dns1035Label(value: string): string[] {
  const errs: string[] = [];
  if (value.length > 63) errs.push(maxLen(63));
  if (!RE_LABEL_1035.test(value))
    errs.push(
      regexError(
        "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character",
        LABEL_1035,
        'my-name',
        'abc-123',
      ),
    );
  return errs;
}

const KEY_MSG =
  "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";

/** IsQualifiedName / IsLabelKey: an optional DNS subdomain prefix and `/`, then a name part. */
export function labelKey(value: string): string[] {
  const errs: string[] = [];
  const parts = value.split('/');
  let name = parts[0] ?? '';
  if (parts.length > 2) {
    return [
      `a valid label key ${regexError(KEY_MSG, KEY_NAME, 'MyName', 'my.name', '123-abc')} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
    ];
  }
  if (parts.length === 2) {
    const prefix = parts[0] ?? '';
    name = parts[1] ?? '';
    if (prefix === '') errs.push('prefix part must be non-empty');
    else errs.push(...dns1123Subdomain(prefix).map((m) => `prefix part ${m}`));
  }
  if (name === '') errs.push('name part must be non-empty');
  else if (name.length > 63) errs.push(`name part ${maxLen(63)}`);
  if (!RE_KEY_NAME.test(name))
    errs.push(`name part ${regexError(KEY_MSG, KEY_NAME, 'MyName', 'my.name', '123-abc')}`);
  return errs;
}

/** IsValidLabelValue. */
export function labelValue(value: string): string[] {
  const errs: string[] = [];
  if (value.length > 63) errs.push(maxLen(63));
  if (!RE_LABEL_VALUE.test(value))
    errs.push(
      regexError(
        "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character",
        LABEL_VALUE,
        'MyValue',
        'my_value',
        '12345',
      ),
    );
  return errs;
}

function chdirPrefix(value: string): string[] {
  if (value === '.') return ["must not be '.'"];
  if (value === '..') return ["must not be '..'"];
  if (value.startsWith('..')) return ["must not start with '..'"];
  return [];
}

/** IsConfigMapKey (ConfigMap and Secret data keys). */
export function configMapKey(value: string): string[] {
  const errs: string[] = [];
  if (value.length > 253) errs.push(maxLen(253));
  if (!RE_CONFIG_KEY.test(value))
    errs.push(
      regexError(
        "a valid config key must consist of alphanumeric characters, '-', '_' or '.'",
        CONFIG_KEY,
        'key.name',
        'KEY_NAME',
        'key-name',
      ),
    );
  errs.push(...chdirPrefix(value));
  return errs;
}

/** IsValidPortNum. */
export function portNumber(port: number): string[] {
  return port >= 1 && port <= 65535 ? [] : ['must be between 1 and 65535, inclusive'];
}

/** IsValidPortName (an IANA service name). */
export function portName(port: string): string[] {
  const errs: string[] = [];
  if (port.length > 15) errs.push(maxLen(15));
  if (!/^[-a-z0-9]+$/.test(port))
    errs.push('must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)');
  if (!/[a-z]/.test(port)) errs.push('must contain at least one letter (a-z)');
  if (port.includes('--')) errs.push('must not contain consecutive hyphens');
  if (port.startsWith('-') || port.endsWith('-')) errs.push('must not begin or end with a hyphen');
  return errs;
}

/** IsRelaxedEnvVarName: the rule since RelaxedEnvironmentVariableValidation went GA (1.34). */
export function envVarName(value: string): string[] {
  const errs: string[] = [];
  if (value === '') errs.push('environment variable name must be non-empty');
  if (/[^\x20-\x7e]|=/.test(value))
    errs.push(
      "a valid environment variable name must consist only of printable ASCII characters other than '='",
    );
  return errs;
}

/** IsValidPercent. */
export function percent(value: string): string[] {
  return RE_PERCENT.test(value)
    ? []
    : [
        regexError(
          "a valid percent string must be a numeric string followed by an ending '%'",
          PERCENT,
          '1%',
          '93%',
        ),
      ];
}
