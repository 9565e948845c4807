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
 * The matcher is one index over every form, updated in place when the set of values changes
 * (never rebuilt per line), and a scan is linear in the text: a rolling hash of the
 * `MIN_REDACT_LENGTH` characters at each position, looked up in a sparse filter of the forms'
 * anchor windows (one window of each form, chosen so that forms sharing a prefix such as
 * `sk_live_` spread out); only a hit compares the text against the forms anchored there. At 3,000
 * values a log line costs 1-2 microseconds, several times less than one RegExp alternating the
 * same literals (bench/redactor.ts, bench/README.md). There is no module-level instance: the
 * composition root makes one (`agentRedactor`, agent/wiring.ts) and injects it.
 */

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

/**
 * Filter slots per anchor, at least: most positions of a text then find their slot empty and cost
 * no lookup (a fuller filter sends more of them to the bucket map, the scan's dearest step).
 */
const FILTER_SPARSITY = 16;

/** The rolling hash's base (odd, so multiplication is invertible mod 2^32). */
const BASE = 0x01000193;

export interface RedactorOptions {
  /** Default {@link MIN_REDACT_LENGTH}; at least 2. */
  minLength?: number;
  /** Default {@link REDACTED}. */
  replacement?: string;
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
  /** BASE^(width-1) mod 2^32: what the character leaving the window weighs. */
  readonly #outWeight: number;
  readonly #owners = new Map<string, Held>();
  /** Each value held, with how many owner sets hold it. */
  readonly #values = new Map<string, number>();
  /** Each form to match, as its anchor (the window it is indexed by, and how many values produce it). */
  readonly #forms = new Map<string, Anchor>();
  /** The anchors of each window hash, as a chain (`next`): most hashes have one. */
  readonly #buckets = new Map<number, Anchor>();
  /** Anchors per filter slot (`slotOf(hash)`): a zero means no form has such a window. */
  #filter = new Uint8Array(1024);
  #mask = 1023;

  constructor(options: RedactorOptions = {}) {
    this.#width = Math.max(2, options.minLength ?? MIN_REDACT_LENGTH);
    this.#replacement = options.replacement ?? REDACTED;
    let weight = 1;
    for (let i = 1; i < this.#width; i++) weight = Math.imul(weight, BASE);
    this.#outWeight = weight;
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
    const next = [...new Set([...values].filter((v) => typeof v === 'string' && v.length >= this.#width))];
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
    const width = this.#width;
    const n = text.length;
    if (this.#forms.size === 0 || n < width) return text;
    const filter = this.#filter;
    const mask = this.#mask;
    const outWeight = this.#outWeight;
    let h = 0;
    for (let i = 0; i < width; i++) h = (Math.imul(h, BASE) + text.charCodeAt(i)) | 0;
    /** Matched spans as start, end pairs; rare, so kept simple. */
    let spans: number[] | undefined;
    for (let i = 0; ; i++) {
      if (filter[slotOf(h, mask)] !== 0) {
        for (let anchor = this.#buckets.get(h); anchor !== undefined; anchor = anchor.next) {
          const start = i - anchor.offset;
          if (start < 0 || start + anchor.form.length > n || !text.startsWith(anchor.form, start)) continue;
          spans ??= [];
          spans.push(start, start + anchor.form.length);
        }
      }
      const next = i + width;
      if (next >= n) break;
      h = (Math.imul(h - Math.imul(text.charCodeAt(i), outWeight), BASE) + text.charCodeAt(next)) | 0;
    }
    return spans === undefined ? text : this.#replace(text, spans);
  }

  /** `text` with the union of the spans (start, end pairs) replaced, one replacement per run. */
  #replace(text: string, flat: number[]): string {
    const spans: [number, number][] = [];
    for (let k = 0; k < flat.length; k += 2) spans.push([flat[k]!, flat[k + 1]!]);
    spans.sort((a, b) => a[0] - b[0]);
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

  /** A copy of a JSON-like value with every string scrubbed (object keys included). */
  scrubDeep<T>(value: T): T {
    if (this.#forms.size === 0) return value;
    return this.#deep(value) as T;
  }

  #deep(value: unknown): unknown {
    if (typeof value === 'string') return this.scrub(value);
    if (Array.isArray(value)) return value.map((v) => this.#deep(v));
    if (value !== null && typeof value === 'object') {
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(value)) out[this.scrub(k)] = this.#deep(v);
      return out;
    }
    return value;
  }

  #hold(value: string): void {
    const count = this.#values.get(value) ?? 0;
    this.#values.set(value, count + 1);
    if (count === 0) for (const form of this.#formsOf(value)) this.#addForm(form);
  }

  #release(value: string): void {
    const count = this.#values.get(value) ?? 0;
    if (count > 1) {
      this.#values.set(value, count - 1);
      return;
    }
    this.#values.delete(value);
    for (const form of this.#formsOf(value)) this.#removeForm(form);
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

  /**
   * Indexes `form` by one window of `width` characters: of its windows, the one whose hash the
   * fewest forms use so far, so that values sharing a prefix (`sk_live_`, `postgres://app:`) do
   * not all land in one bucket that every such prefix in the text would have to check.
   */
  #addForm(form: string): void {
    const known = this.#forms.get(form);
    if (known) {
      known.count += 1;
      return;
    }
    const width = this.#width;
    let h = this.#hashOf(form, 0);
    let best = { hash: h, offset: 0, size: this.#chainLength(h) };
    for (let i = 0; best.size > 0 && i + width < form.length; i++) {
      h =
        (Math.imul(h - Math.imul(form.charCodeAt(i), this.#outWeight), BASE) + form.charCodeAt(i + width)) |
        0;
      const size = this.#chainLength(h);
      if (size < best.size) best = { hash: h, offset: i + 1, size };
    }
    const anchor: Anchor = {
      form,
      offset: best.offset,
      hash: best.hash,
      count: 1,
      next: this.#buckets.get(best.hash),
    };
    this.#forms.set(form, anchor);
    this.#buckets.set(anchor.hash, anchor);
    if (this.#forms.size > this.#filter.length / FILTER_SPARSITY) this.#resize(this.#filter.length * 4);
    else this.#count(anchor.hash, 1);
  }

  #removeForm(form: string): void {
    const anchor = this.#forms.get(form);
    if (!anchor) return;
    if (anchor.count > 1) {
      anchor.count -= 1;
      return;
    }
    this.#forms.delete(form);
    const head = this.#buckets.get(anchor.hash);
    if (head === anchor) {
      if (anchor.next) this.#buckets.set(anchor.hash, anchor.next);
      else this.#buckets.delete(anchor.hash);
    } else {
      let before = head;
      while (before && before.next !== anchor) before = before.next;
      if (before) before.next = anchor.next;
    }
    this.#count(anchor.hash, -1);
  }

  /** How many anchors the chain of `hash` holds. */
  #chainLength(hash: number): number {
    let n = 0;
    for (let a = this.#buckets.get(hash); a !== undefined; a = a.next) n++;
    return n;
  }

  /** Adds `delta` to the anchors counted in `hash`'s slot; a full slot stays full (never wrongly empty). */
  #count(hash: number, delta: number): void {
    const slot = slotOf(hash, this.#mask);
    const now = this.#filter[slot]!;
    if (now < 255) this.#filter[slot] = Math.max(0, Math.min(255, now + delta));
  }

  /** A filter of `size` slots (a power of two), refilled from the buckets. */
  #resize(size: number): void {
    this.#filter = new Uint8Array(size);
    this.#mask = size - 1;
    for (const h of this.#buckets.keys()) this.#count(h, this.#chainLength(h));
  }

  /** The hash of `text`'s `width` characters from `from`. */
  #hashOf(text: string, from: number): number {
    let h = 0;
    for (let i = from; i < from + this.#width; i++) h = (Math.imul(h, BASE) + text.charCodeAt(i)) | 0;
    return h;
  }
}

/** A form and the window it is indexed by: `width` characters from `offset`, hashing to `hash`. */
interface Anchor {
  form: string;
  offset: number;
  hash: number;
  /** How many values produce this form. */
  count: number;
  /** The next anchor of the same hash. */
  next: Anchor | undefined;
}

/** The filter slot of a hash. */
function slotOf(hash: number, mask: number): number {
  return (hash ^ (hash >>> 15)) & mask;
}

function sameValues(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  const set = new Set(a);
  return b.every((v) => set.has(v));
}
