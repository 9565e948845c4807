import YAML from 'yaml';
import type { RenderedObject } from './types.ts';

/** Plain words a YAML 1.1 reader takes for a bool or null (compared lower-cased). */
const YAML11_WORDS: ReadonlySet<string> = new Set([
  'y',
  'n',
  'yes',
  'no',
  'on',
  'off',
  'true',
  'false',
  'null',
  '~',
  '=',
  '<<',
]);

/**
 * Whether a YAML 1.1 reader (kubectl, through sigs.k8s.io/yaml and go-yaml) or Go's number parsing
 * could read this plain string as something other than a string: bools and nulls of either YAML
 * version, anything starting like a number (ints in any base, `1_000`, floats, sexagesimals,
 * timestamps), `.inf` / `.nan`, the empty string.
 */
export function yaml11Ambiguous(s: string): boolean {
  return (
    s === '' || YAML11_WORDS.has(s.toLowerCase()) || /^[-+]?\.?[0-9]/.test(s) || /^[-+]?\.(inf|nan)$/i.test(s)
  );
}

/**
 * Objects as a YAML multi-document stream (each document starts with `---`): never line-folded,
 * never with anchors or aliases (kubectl and humans read it), and every string a YAML 1.1 reader
 * would take for another type double-quoted, keys included.
 *
 * Rendered objects are plain JSON data, so most documents are written here directly, in the form
 * the `yaml` library gives them (block maps and sequences, two spaces, sequences indented under
 * their key); a scalar that is not a safe plain word is written by the library itself, and a
 * document holding a multi-line string goes to the library whole. The library alone did 157
 * renders per second with YAML (bench/README.md); the output is the same bytes
 * (test/render/yaml-emit.property.test.ts).
 */
export function toYamlStream(objects: readonly RenderedObject[]): string {
  return new YamlWriter().stream(objects);
}

/**
 * Writes YAML streams (see toYamlStream), keeping the text of the scalars the library wrote:
 * labels and names repeat across documents and across the streams of one caller. The texts live
 * as long as the writer, at most WRITTEN_MAX of them (all are dropped when it is full); a text
 * depends on its string alone, so nothing else makes one stale.
 */
export class YamlWriter {
  readonly #written = new Map<string, string>();

  /** `objects` as a YAML multi-document stream. */
  stream(objects: readonly RenderedObject[]): string {
    let out = '';
    for (const o of objects) {
      const doc: Out = { s: '', written: this.#written };
      const map = o as unknown as Record<string, unknown>;
      out += `---\n${hasKeys(map) && emitMap(map, '', doc) ? doc.s : libraryDocument(o)}`;
    }
    return out;
  }
}

/** The most scalar texts a writer keeps. */
const WRITTEN_MAX = 4_096;

/** A document's text as it is written, and the stream's scalar texts (see stringText). */
interface Out {
  s: string;
  /** Scalars the library wrote, by their text: the writer's (YamlWriter). */
  written: Map<string, string>;
}

/** One document by the `yaml` library (see toYamlStream). */
function libraryDocument(o: unknown): string {
  const doc = new YAML.Document(o, { aliasDuplicateObjects: false });
  YAML.visit(doc, {
    Scalar(_key, node) {
      if (typeof node.value === 'string' && yaml11Ambiguous(node.value)) node.type = 'QUOTE_DOUBLE';
    },
  });
  return doc.toString({ lineWidth: 0 });
}

/** A word the library writes plain and no YAML reader takes for anything but that string. */
const SAFE_PLAIN = /^[A-Za-z0-9_./][A-Za-z0-9_./=+@,()-]*(?: [A-Za-z0-9_./=+@,()-]+)*$/;

/** A string scalar as the library writes it, or undefined when it spans out (the caller gives up). */
function stringText(s: string, written: Map<string, string>): string | undefined {
  const known = written.get(s);
  if (known !== undefined) return known;
  let text: string;
  if (!yaml11Ambiguous(s) && SAFE_PLAIN.test(s)) text = s;
  else {
    if (/[\n\r]/.test(s)) return undefined;
    const node = new YAML.Scalar(s);
    if (yaml11Ambiguous(s)) node.type = 'QUOTE_DOUBLE';
    text = new YAML.Document(node).toString({ lineWidth: 0 }).replace(/\n$/, '');
    if (text.includes('\n')) return undefined;
  }
  if (written.size >= WRITTEN_MAX) written.clear();
  written.set(s, text);
  return text;
}

/** A scalar's text; undefined for a value this writer leaves to the library. */
function scalarText(v: unknown, written: Map<string, string>): string | undefined {
  if (v === null) return 'null';
  if (typeof v === 'string') return stringText(v, written);
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  if (typeof v === 'number') {
    const t = String(v);
    return !Object.is(v, -0) && /^-?[0-9]+(\.[0-9]+)?$/.test(t) ? t : undefined;
  }
  return undefined;
}

const isMap = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);

/** Whether a map has a key (without making the list of its keys). */
function hasKeys(map: Record<string, unknown>): boolean {
  for (const _ in map) return true;
  return false;
}

/**
 * `value` under a key or a dash: its text after `key:` (a scalar or an empty collection on the
 * same line) or its block on the next out. False when the library must write the document.
 */
function emitValue(head: string, value: unknown, indent: string, out: Out, seqIndent: string): boolean {
  if (Array.isArray(value)) {
    if (value.length === 0) {
      out.s += `${head} []\n`;
      return true;
    }
    out.s += `${head}\n`;
    return emitSeq(value, seqIndent, out);
  }
  if (isMap(value)) {
    if (!hasKeys(value)) {
      out.s += `${head} {}\n`;
      return true;
    }
    out.s += `${head}\n`;
    return emitMap(value, `${indent}  `, out);
  }
  const text = scalarText(value, out.written);
  if (text === undefined) return false;
  out.s += `${head} ${text}\n`;
  return true;
}

function emitMap(map: Record<string, unknown>, indent: string, out: Out, first = ''): boolean {
  let lead = first;
  for (const key in map) {
    const value = map[key];
    if (value === undefined) continue;
    const k = stringText(key, out.written);
    if (k === undefined) return false;
    // A sequence under a key is indented by two more (the library's indentSeq).
    if (!emitValue(`${lead || indent}${k}:`, value, indent, out, `${indent}  `)) return false;
    lead = '';
  }
  return true;
}

function emitSeq(seq: readonly unknown[], indent: string, out: Out): boolean {
  for (const item of seq) {
    if (isMap(item) && hasKeys(item)) {
      // The first key on the dash's line, the others under it.
      if (!emitMap(item, `${indent}  `, out, `${indent}- `)) return false;
    } else if (Array.isArray(item) && item.length > 0) {
      return false; // a sequence in a sequence (`- - a`): the library's
    } else if (!emitValue(`${indent}-`, item, indent, out, `${indent}  `)) return false;
  }
  return true;
}

/** Objects as a kubectl-style `List`, pretty-printed JSON. */
export function toJsonList(objects: readonly RenderedObject[]): string {
  return `${JSON.stringify({ apiVersion: 'v1', kind: 'List', items: objects }, null, 2)}\n`;
}
