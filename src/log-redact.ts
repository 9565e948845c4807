/**
 * The logger's structural guard (`REDACT_PATHS` in log.ts), with its paths parsed once. pino's own
 * `redact` option parses every path again on every line for every top-level field, garbage on
 * every line (bench/README.md, "N = 1,000: the agent's CPU per object, a second cut"); this one
 * walks only the fields a path names and copies only what it censors, so a line with nothing to
 * censor costs no allocation.
 */

/** A path split into its segments: `a.b["c-d"][*].e` is `['a', 'b', 'c-d', '*', 'e']`; `*` is any one key. */
export function pathSegments(path: string): string[] {
  const out: string[] = [];
  const rx = /([^.[\]]+)|\[(?:"([^"]*)"|'([^']*)'|([^\]]*))\]/g;
  for (let m = rx.exec(path); m !== null; m = rx.exec(path)) {
    out.push(m[1] ?? m[2] ?? m[3] ?? m[4] ?? '');
  }
  return out;
}

/**
 * A shallow copy that prints as `value` does: same prototype and own members, an accessor's value
 * read (an Error's `stack` is an accessor that answers only for the Error itself).
 */
function shallowCopy(value: object): Record<string, unknown> {
  if (Array.isArray(value)) return value.slice() as unknown as Record<string, unknown>;
  const copy = Object.create(Object.getPrototypeOf(value)) as Record<string | symbol, unknown>;
  for (const key of Reflect.ownKeys(value)) {
    const d = Object.getOwnPropertyDescriptor(value, key)!;
    Object.defineProperty(
      copy,
      key,
      'value' in d
        ? d
        : {
            value: (value as Record<string | symbol, unknown>)[key],
            enumerable: d.enumerable,
            writable: true,
            configurable: true,
          },
    );
  }
  return copy as Record<string, unknown>;
}

/** What `v`, a member at segment `i`, becomes: `censor` at the path's end, else censored further in. */
function censorMember(v: unknown, segs: readonly string[], i: number, censor: string): unknown {
  if (v === undefined) return v;
  return i === segs.length - 1 ? censor : censorAt(v, segs, i + 1, censor);
}

/**
 * `value` with `censor` at `segs` from `i` on: the same value when nothing there is present, else a
 * copy. No closure or list of keys is made: it runs for every path on every line.
 */
function censorAt(value: unknown, segs: readonly string[], i: number, censor: string): unknown {
  if (value === null || typeof value !== 'object') return value;
  const record = value as Record<string, unknown>;
  const seg = segs[i] as string;
  if (seg !== '*') {
    if (!Object.hasOwn(record, seg)) return value;
    const v = record[seg];
    const next = censorMember(v, segs, i, censor);
    if (next === v) return value;
    const out = shallowCopy(record);
    out[seg] = next;
    return out;
  }
  let out: Record<string, unknown> | undefined;
  for (const key in record) {
    if (!Object.hasOwn(record, key)) continue;
    const v = record[key];
    const next = censorMember(v, segs, i, censor);
    if (next === v) continue;
    out ??= shallowCopy(record);
    out[key] = next;
  }
  return out ?? value;
}

/**
 * A function that censors `paths` (pino's redact syntax: dots, `["quoted"]` and `[*]`) in a log
 * object: it returns the object itself when no path is present in it, else a copy in which each
 * present value is `censor`; the caller's object is never changed.
 */
export function fieldRedactor(
  paths: readonly string[],
  censor: string,
): <T extends Record<string, unknown>>(obj: T) => T {
  const compiled = paths.map(pathSegments);
  return <T extends Record<string, unknown>>(obj: T): T => {
    let out: unknown = obj;
    for (const segs of compiled) out = censorAt(out, segs, 0, censor);
    return out as T;
  };
}
