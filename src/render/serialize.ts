import YAML from 'yaml';
import type { KubeObject } from './types.ts';

/**
 * Objects as a YAML multi-document stream (each document starts with `---`): never line-folded,
 * never with anchors or aliases (kubectl and humans read it).
 */
export function toYamlStream(objects: readonly KubeObject[]): string {
  return objects
    .map((o) => `---\n${YAML.stringify(o, { lineWidth: 0, aliasDuplicateObjects: false })}`)
    .join('');
}

/** Objects as a kubectl-style `List`, pretty-printed JSON. */
export function toJsonList(objects: readonly KubeObject[]): string {
  return `${JSON.stringify({ apiVersion: 'v1', kind: 'List', items: objects }, null, 2)}\n`;
}
