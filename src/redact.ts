/**
 * The textual redactor: replaces every known secret value wherever it appears in text the agent
 * emits (log lines at every level, `/status`, Events, stored error reasons, CLI output). pino's
 * `redact` paths (log.ts) are the structural guard: they censor fields by name. This one is the
 * guard against text that quotes a value under any name, such as an admission webhook's refusal
 * ("env value \"<the secret>\" is not allowed") kept in an error message.
 *
 * It knows the values it is given: each deployment's `secrets[].value` (fed by the agent as the
 * poll sees the records, forgotten when the deployment leaves) and the API key. For each value it
 * also matches the forms the value takes in the agent's output: JSON-escaped once (inside a log
 * line) and twice (a quoted request body inside a log line), base64 (a Secret's `data`), and, for
 * a value of several lines, each line on its own.
 *
 * Values shorter than {@link MIN_REDACT_LENGTH} characters are not scrubbed (see there).
 *
 * The forms are matched by one index (`redact-index.ts`), updated in place when the set of values
 * changes and scanned in time linear in the text; it was chosen over one RegExp alternating the
 * literals by bench/redactor.ts (bench/README.md). There is no module-level instance: the
 * composition root makes one (`agentRedactor`) and injects it.
 */

import { FormIndex } from './redact-index.ts';
import { PROTECTED_FIELDS, scrubbableRanges, scrubbableSpan } from './redact-json.ts';

/**
 * The shortest value that is scrubbed, in UTF-16 code units. Shorter values are left alone: below
 * six characters a "secret" is a port, a boolean, a log level or a short word (`8080`, `true`,
 * `false`, `info`, `debug`), and scrubbing it would censor the log's own fields (`"level":"info"`)
 * and any name that contains it, on every line; a credential that short is guessed in no time
 * anyway. Six keeps pino's own vocabulary intact while covering PINs and passwords of six and up.
 */
export const MIN_REDACT_LENGTH = 6;

/** What a scrubbed value is replaced with. */
export const REDACTED = '[redacted]';

/** Something that scrubs text; the parts of the agent that emit text take this. */
export interface Scrubber {
  scrub(text: string): string;
}

/** A scrubber that changes nothing (tests, library use). */
export const NO_SCRUB: Scrubber = { scrub: (text) => text };

export interface RedactorOptions {
  /** Default {@link MIN_REDACT_LENGTH}; at least 2. */
  minLength?: number;
  /** Default {@link REDACTED}. */
  replacement?: string;
  /**
   * The agent's own words (error codes, states, level names): a value that is one is not held.
   * Otherwise a record could register `MOORING_E_RENDER_POLICY` or `Refused` as a secret and
   * erase it from every other deployment's diagnostics.
   */
  vocabulary?: (value: string) => boolean;
}

/** What one owner (a deployment id, `api-key`) holds: its latest values and the set before. */
interface Held {
  current: readonly string[];
  previous: readonly string[];
}

/**
 * Replaces known secret values in text. Values are held per owner; `set` replaces an owner's
 * values (the previous set stays scrubbed until the next change, for work still using them),
 * `forget` drops them.
 */
export class Redactor implements Scrubber {
  readonly #width: number;
  readonly #replacement: string;
  readonly #vocabulary: (value: string) => boolean;
  readonly #owners = new Map<string, Held>();
  /** Each value held, with how many owner sets hold it. */
  readonly #values = new Map<string, number>();
  /** Each form to match, counted once per value that produces it. */
  readonly #forms: FormIndex;

  constructor(options: RedactorOptions = {}) {
    this.#width = Math.max(2, options.minLength ?? MIN_REDACT_LENGTH);
    this.#replacement = options.replacement ?? REDACTED;
    this.#vocabulary = options.vocabulary ?? (() => false);
    this.#forms = new FormIndex(this.#width);
  }

  /** The shortest value scrubbed. */
  get minLength(): number {
    return this.#width;
  }

  /** Distinct values held (of at least the minimum length). */
  get size(): number {
    return this.#values.size;
  }

  /** Forms matched (each value's text, escaped and encoded forms). */
  get forms(): number {
    return this.#forms.size;
  }

  /**
   * Sets the values `owner` holds. The set it held before stays scrubbed as well, until the next
   * change or `forget`: a reconcile still working on the old values may yet log what the API
   * server says about them. Values shorter than the minimum are ignored.
   */
  set(owner: string, values: Iterable<string>): void {
    const next = [
      ...new Set(
        [...values].filter((v) => typeof v === 'string' && v.length >= this.#width && !this.#vocabulary(v)),
      ),
    ];
    const held = this.#owners.get(owner);
    if (held && sameValues(held.current, next)) return;
    const updated: Held = { current: next, previous: held?.current ?? [] };
    for (const v of updated.current) this.#hold(v);
    for (const v of updated.previous) this.#hold(v);
    if (held) {
      for (const v of held.current) this.#release(v);
      for (const v of held.previous) this.#release(v);
    }
    this.#owners.set(owner, updated);
  }

  /** Drops every value `owner` holds (those another owner also holds stay). */
  forget(owner: string): void {
    const held = this.#owners.get(owner);
    if (!held) return;
    this.#owners.delete(owner);
    for (const v of held.current) this.#release(v);
    for (const v of held.previous) this.#release(v);
  }

  /** `text` with every known value (in any of its forms) replaced; the same string when none occurs. */
  scrub(text: string): string {
    const spans = this.#forms.spans(text);
    return spans === undefined ? text : this.#replace(text, sortedSpans(spans));
  }

  /**
   * A finished JSON log line with every known value replaced inside its string values only: keys,
   * punctuation and the `level`, `code` and `state` fields are never touched, so the line stays
   * JSON and says what it said, whatever values a record registered. Text that is not one JSON
   * object is scrubbed as `scrub` does.
   */
  scrubJsonLine(line: string): string {
    const found = this.#forms.spans(line);
    if (found === undefined) return line;
    const ranges = scrubbableRanges(line);
    const spans = sortedSpans(found);
    if (ranges === undefined) return this.#replace(line, spans);
    const inside = spans.filter(([s, e]) => scrubbableSpan(line, ranges, s, e));
    return inside.length === 0 ? line : this.#replace(line, inside);
  }

  /** `text` with the union of the spans (sorted by start) replaced, one replacement per run. */
  #replace(text: string, spans: readonly [number, number][]): string {
    let out = '';
    let copied = 0;
    let [start, end] = spans[0]!;
    for (const [s, e] of spans) {
      if (s <= end) {
        if (e > end) end = e;
        continue;
      }
      out += text.slice(copied, start) + this.#replacement;
      copied = end;
      start = s;
      end = e;
    }
    return out + text.slice(copied, start) + this.#replacement + text.slice(end);
  }

  /**
   * A copy of a JSON-like value with every string value scrubbed. Keys and the values of the
   * `level`, `code` and `state` fields are the agent's words, left as they are (`/status` keeps
   * every deployment's state, whatever another registered).
   */
  scrubDeep<T>(value: T): T {
    if (this.#forms.size === 0) return value;
    return this.#deep(value) as T;
  }

  #deep(value: unknown): unknown {
    if (typeof value === 'string') return this.scrub(value);
    if (Array.isArray(value)) return value.map((v) => this.#deep(v));
    if (value !== null && typeof value === 'object') {
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(value)) out[k] = PROTECTED_FIELDS.has(k) ? v : this.#deep(v);
      return out;
    }
    return value;
  }

  #hold(value: string): void {
    const count = this.#values.get(value) ?? 0;
    this.#values.set(value, count + 1);
    if (count === 0) for (const form of this.#formsOf(value)) this.#forms.add(form);
  }

  #release(value: string): void {
    const count = this.#values.get(value) ?? 0;
    if (count > 1) {
      this.#values.set(value, count - 1);
      return;
    }
    this.#values.delete(value);
    for (const form of this.#formsOf(value)) this.#forms.remove(form);
  }

  /** The forms `value` takes in the agent's output (each at least the minimum length). */
  #formsOf(value: string): Set<string> {
    const forms = new Set<string>();
    const add = (text: string) => {
      if (text.length < this.#width) return;
      forms.add(text);
      const once = JSON.stringify(text).slice(1, -1);
      forms.add(once);
      forms.add(JSON.stringify(once).slice(1, -1));
    };
    add(value);
    forms.add(Buffer.from(value, 'utf8').toString('base64'));
    if (/[\r\n]/.test(value)) for (const line of value.split(/\r?\n|\r/)) add(line);
    return forms;
  }
}

/** Flat start, end pairs as pairs, by start. */
function sortedSpans(flat: readonly number[]): [number, number][] {
  const spans: [number, number][] = [];
  for (let k = 0; k < flat.length; k += 2) spans.push([flat[k]!, flat[k + 1]!]);
  return spans.sort((a, b) => a[0] - b[0]);
}

function sameValues(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  const set = new Set(a);
  return b.every((v) => set.has(v));
}
