import YAML from 'yaml';
import type { RenderedObject } from './types.ts';

/** Plain words a YAML 1.1 reader takes for a bool or null (compared lower-cased). */
const YAML11_WORDS = new Set(['y', 'n', 'yes', 'no', 'on', 'off', 'true', 'false', 'null', '~', '=', '<<']);

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
 */
export function toYamlStream(objects: readonly RenderedObject[]): string {
  return objects
    .map((o) => {
      const doc = new YAML.Document(o, { aliasDuplicateObjects: false });
      YAML.visit(doc, {
        Scalar(_key, node) {
          if (typeof node.value === 'string' && yaml11Ambiguous(node.value)) node.type = 'QUOTE_DOUBLE';
        },
      });
      return `---\n${doc.toString({ lineWidth: 0 })}`;
    })
    .join('');
}

/** Objects as a kubectl-style `List`, pretty-printed JSON. */
export function toJsonList(objects: readonly RenderedObject[]): string {
  return `${JSON.stringify({ apiVersion: 'v1', kind: 'List', items: objects }, null, 2)}\n`;
}
