/**
 * Where a finished JSON log line may be scrubbed: the contents of its string values, except
 * those of the fields that say what the line is (`level`, `code`, `state`), never a key and never
 * the punctuation between fields. A secret value is the text a record chose: matched against the
 * whole line, `"level":"error"` or a state name would erase another deployment's line structure
 * or its verdict. The redactor only looks here once a form was found in the line, so a line with
 * no secret in it costs nothing more.
 */

/** Fields whose values are the agent's own words: never scrubbed. */
export const PROTECTED_FIELDS: ReadonlySet<string> = new Set(['level', 'code', 'state']);

/**
 * The contents of the scrubbable string values of the JSON text `line`, as flat start, end pairs
 * (ascending); undefined when `line` is not one JSON object (the caller then treats it as text).
 */
export function scrubbableRanges(line: string): number[] | undefined {
  const out: number[] = [];
  /** For each open container: whether it is an object, and the key its values are under. */
  const stack: { object: boolean; key: string | undefined }[] = [];
  let expectKey = false;
  let opened = false;
  let i = 0;
  const n = line.length;
  while (i < n) {
    const c = line.charCodeAt(i);
    if (c === 0x22 /* " */) {
      const start = i + 1;
      let j = start;
      while (j < n) {
        const d = line.charCodeAt(j);
        if (d === 0x5c /* \ */) j += 2;
        else if (d === 0x22) break;
        else j++;
      }
      if (j >= n) return undefined;
      const top = stack[stack.length - 1];
      if (top === undefined) return undefined;
      if (top.object && expectKey) {
        top.key = JSON.parse(line.slice(i, j + 1)) as string;
        expectKey = false;
      } else if (top.key === undefined || !PROTECTED_FIELDS.has(top.key)) {
        if (j > start) out.push(start, j);
      }
      i = j + 1;
      continue;
    }
    if (c === 0x7b /* { */) {
      if (stack.length === 0 && opened) return undefined;
      opened = true;
      stack.push({ object: true, key: undefined });
      expectKey = true;
    } else if (c === 0x5b /* [ */) {
      // An array's strings are under the key of the array.
      stack.push({ object: false, key: stack[stack.length - 1]?.key });
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
      stack.pop();
      expectKey = false;
    } else if (c === 0x2c /* , */) {
      expectKey = stack[stack.length - 1]?.object === true;
    }
    i++;
  }
  return stack.length === 0 && opened ? out : undefined;
}

/**
 * Whether [start, end) of `line` lies inside one of `ranges` (ascending flat start, end pairs) and
 * splits no escape sequence (`\"`, `\u0041`): replacing it then leaves valid JSON.
 */
export function scrubbableSpan(line: string, ranges: readonly number[], start: number, end: number): boolean {
  for (let k = 0; k < ranges.length; k += 2) {
    if (ranges[k]! > start) return false;
    if (end <= ranges[k + 1]!) return !insideEscape(line, start) && !insideEscape(line, end);
  }
  return false;
}

/** Whether the character at `pos` is part of an escape sequence that began before it. */
function insideEscape(line: string, pos: number): boolean {
  if (backslashesBefore(line, pos) % 2 === 1) return true;
  // \uXXXX: pos on one of the four hex digits.
  for (let d = 1; d <= 4; d++) {
    const u = pos - d;
    if (u < 1) return false;
    if (line.charCodeAt(u) === 0x75 /* u */ && backslashesBefore(line, u) % 2 === 1) return true;
  }
  return false;
}

/** How many backslashes immediately precede `pos`. */
function backslashesBefore(line: string, pos: number): number {
  let n = 0;
  while (pos - n - 1 >= 0 && line.charCodeAt(pos - n - 1) === 0x5c) n++;
  return n;
}
