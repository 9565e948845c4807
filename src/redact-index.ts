/**
 * The redactor's matcher: finds every occurrence of a set of literal strings ("forms", each at
 * least `width` characters) in a text, in one pass linear in the text. A rolling hash of the
 * `width` characters at each position is looked up in a sparse filter of the forms' anchor
 * windows (one window of each form, chosen so that forms sharing a prefix such as `sk_live_`
 * spread out); only a hit compares the text against the forms anchored there. The set of forms
 * changes in place, never rebuilt.
 */

/**
 * Filter slots per anchor, at least: most positions of a text then find their slot empty and cost
 * no lookup (a fuller filter sends more of them to the bucket map, the scan's dearest step).
 */
const FILTER_SPARSITY = 16;

/** The rolling hash's base (odd, so multiplication is invertible mod 2^32). */
const BASE = 0x01000193;

/** A form and the window it is indexed by: `width` characters from `offset`, hashing to `hash`. */
interface Anchor {
  form: string;
  offset: number;
  hash: number;
  /** How many times the form was added (and not yet removed). */
  count: number;
  /** The next anchor of the same hash. */
  next: Anchor | undefined;
}

/** A counted set of literal forms and a scan that finds them in a text. */
export class FormIndex {
  readonly #width: number;
  /** BASE^(width-1) mod 2^32: what the character leaving the window weighs. */
  readonly #outWeight: number;
  readonly #forms = new Map<string, Anchor>();
  /** The anchors of each window hash, as a chain (`next`): most hashes have one. */
  readonly #buckets = new Map<number, Anchor>();
  /** Anchors per filter slot (`slotOf(hash)`): a zero means no form has such a window. */
  #filter = new Uint8Array(1024);
  #mask = 1023;

  /** `width`: the window of the rolling hash, and the shortest form that may be added. */
  constructor(width: number) {
    this.#width = width;
    let weight = 1;
    for (let i = 1; i < width; i++) weight = Math.imul(weight, BASE);
    this.#outWeight = weight;
  }

  /** Distinct forms held. */
  get size(): number {
    return this.#forms.size;
  }

  /**
   * The spans of `text` where a form occurs, as flat start, end pairs (overlapping, unsorted);
   * undefined when none does.
   */
  spans(text: string): number[] | undefined {
    const width = this.#width;
    const n = text.length;
    if (this.#forms.size === 0 || n < width) return undefined;
    const filter = this.#filter;
    const mask = this.#mask;
    const outWeight = this.#outWeight;
    let h = this.#hashOf(text, 0);
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
    return spans;
  }

  /**
   * Adds one count of `form`, indexed by one window of `width` characters: of its windows, the one
   * whose hash the fewest forms use so far, so that values sharing a prefix (`sk_live_`,
   * `postgres://app:`) do not all land in one bucket that every such prefix in the text would
   * have to check.
   */
  add(form: string): void {
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

  /** Removes one count of `form`; the form goes when its last count does. */
  remove(form: string): void {
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

/** The filter slot of a hash. */
function slotOf(hash: number, mask: number): number {
  return (hash ^ (hash >>> 15)) & mask;
}
