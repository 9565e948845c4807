/**
 * A list answer parsed item by item as its bytes arrive: each element of the document's top-level
 * `items` array is cut out, parsed and handed on on its own, and the rest of the document (kind,
 * metadata with its continue token) is parsed at the end with an empty `items`. A page of whole
 * workloads is about 700 KB of JSON; parsed whole it was held as bytes, text and parsed objects at
 * once, several pages at a time, and that burst after convergence set the agent's peak memory
 * (bench/README.md, "N = 1,000: the list pages parsed item by item").
 */

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const ITEMS_KEY = 'items';
/** Longest key text kept to compare with `items` (longer keys are not it). */
const KEY_KEEP = 16;

/**
 * `onItem`, remembering what it threw: a list its own item handler refused is the caller's
 * doing, not the server's failure (`threw` tells that error from the others).
 */
export function refusingHandler(onItem: (item: unknown) => void): {
  onItem: (item: unknown) => void;
  threw: (err: unknown) => boolean;
} {
  let refusal: { err: unknown } | undefined;
  return {
    onItem: (item) => {
      try {
        onItem(item);
      } catch (err) {
        refusal = { err };
        throw err;
      }
    },
    threw: (err) => refusal !== undefined && refusal.err === err,
  };
}

function isSpace(b: number): boolean {
  return b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09;
}

/**
 * Takes a JSON document's bytes in chunks (`write`) and calls `onItem` with each element of its
 * top-level `items` array, parsed, as soon as the element's last byte has come. `end` checks the
 * document is complete and returns it parsed, its `items` emptied (a document without a top-level
 * `items` array comes back whole). A throw from `onItem` passes out of `write`. Invalid JSON
 * throws a `SyntaxError` from `write` or `end`.
 */
export class ListItems {
  readonly #onItem: (item: unknown) => void;
  #depth = 0;
  #inString = false;
  /** Backslashes that ended the previous chunk inside a string (an escape may span chunks). */
  #slashes = 0;
  /** The string being read is a key or value of the top-level object: its text is kept. */
  #topString = false;
  #key = '';
  /** The last string of the top-level object was the key `items`. */
  #afterItemsKey = false;
  #inItems = false;
  /** Bytes of the element being read, from earlier chunks. */
  #element: Buffer[] = [];
  #elementOpen = false;
  /** The document without the items array's elements. */
  #rest: Buffer[] = [];

  constructor(onItem: (item: unknown) => void) {
    this.#onItem = onItem;
  }

  /** Reads one chunk of the document. */
  write(chunk: Buffer): void {
    let restFrom = this.#inItems ? -1 : 0;
    let elementFrom = this.#elementOpen ? 0 : -1;
    const n = chunk.length;
    let i = 0;
    while (i < n) {
      if (this.#inString) {
        const q = chunk.indexOf(QUOTE, i);
        if (q < 0) {
          if (this.#topString) this.#keepKey(chunk, i, n);
          this.#slashes = trailingSlashes(chunk, n, this.#slashes);
          i = n;
          break;
        }
        if (trailingSlashes(chunk, q, this.#slashes) % 2 === 1) {
          // An escaped quote: the string goes on.
          if (this.#topString) this.#keepKey(chunk, i, q + 1);
          this.#slashes = 0;
          i = q + 1;
          continue;
        }
        if (this.#topString) {
          this.#keepKey(chunk, i, q);
          this.#afterItemsKey = this.#key === ITEMS_KEY;
        }
        this.#inString = false;
        this.#slashes = 0;
        i = q + 1;
        continue;
      }
      const b = chunk[i]!;
      if (this.#inItems && this.#depth === 2 && !this.#elementOpen) {
        // Between elements of the items array.
        if (isSpace(b) || b === COMMA) {
          i += 1;
          continue;
        }
        if (b !== 0x5d) {
          this.#elementOpen = true;
          elementFrom = i;
        }
      }
      switch (b) {
        case QUOTE:
          this.#inString = true;
          this.#slashes = 0;
          this.#topString = this.#depth === 1;
          if (this.#topString) this.#key = '';
          break;
        case 0x7b: // {
        case 0x5b: // [
          this.#depth += 1;
          if (this.#depth === 2 && b === 0x5b && this.#afterItemsKey && !this.#inItems) {
            this.#inItems = true;
            this.#rest.push(Buffer.from(chunk.subarray(restFrom, i + 1)));
            restFrom = -1;
          }
          break;
        case 0x7d: // }
        case 0x5d: // ]
          if (this.#depth === 2 && this.#inItems) {
            // The items array ends: its last element with it.
            if (this.#elementOpen) this.#emit(chunk, elementFrom, i);
            elementFrom = -1;
            this.#inItems = false;
            restFrom = i;
          }
          this.#depth -= 1;
          if (this.#depth < 0) throw new SyntaxError('list answer: unbalanced JSON');
          break;
        case COMMA:
          if (this.#depth === 2 && this.#inItems && this.#elementOpen) {
            this.#emit(chunk, elementFrom, i);
            elementFrom = -1;
          }
          break;
        default:
          break;
      }
      if (this.#depth === 1 && b !== QUOTE && !isSpace(b) && b !== 0x3a) this.#afterItemsKey = false;
      i += 1;
    }
    if (this.#elementOpen && elementFrom >= 0) this.#element.push(chunk.subarray(elementFrom, n));
    if (restFrom >= 0) this.#rest.push(Buffer.from(chunk.subarray(restFrom, n)));
  }

  /** The document without its items, once every byte has come. */
  end(): unknown {
    if (this.#depth !== 0 || this.#inString) throw new SyntaxError('list answer: incomplete JSON');
    const rest = Buffer.concat(this.#rest).toString('utf8');
    this.#rest = [];
    return rest.trim() === '' ? undefined : JSON.parse(rest);
  }

  #keepKey(chunk: Buffer, from: number, to: number): void {
    if (this.#key.length <= KEY_KEEP)
      this.#key += chunk.toString('latin1', from, Math.min(to, from + KEY_KEEP));
  }

  #emit(chunk: Buffer, from: number, to: number): void {
    const parts = this.#element;
    this.#element = [];
    this.#elementOpen = false;
    const text =
      parts.length === 0
        ? chunk.toString('utf8', from, to)
        : Buffer.concat([...parts, chunk.subarray(from, to)]).toString('utf8');
    this.#onItem(JSON.parse(text));
  }
}

/** Backslashes just before `end` in `chunk`, plus `carried` when they reach the chunk's start. */
function trailingSlashes(chunk: Buffer, end: number, carried: number): number {
  let j = end - 1;
  while (j >= 0 && chunk[j] === BACKSLASH) j -= 1;
  return j < 0 ? end + carried : end - 1 - j;
}
