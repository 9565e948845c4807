/**
 * `toYamlStream` writes most documents itself instead of through the `yaml` library (157 renders
 * per second with YAML when the library wrote everything). Its output must be the library's, byte
 * for byte: the golden files, `mooring diff` and the YAML 1.1 quoting rules rest on it. Random
 * JSON objects (tricky words, numbers, nested maps and sequences, multi-line strings) are written
 * both ways and compared.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { toYamlStream, yaml11Ambiguous } from '../../src/render/serialize.ts';
import type { RenderedObject } from '../../src/render/types.ts';
import { renderDeployment } from '../../src/render/index.ts';
import { GOLDEN_CASES } from './fixtures.ts';

/** The stream as the library alone writes it (the writer before 2026-11-29). */
function byLibrary(objects: readonly unknown[]): string {
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

const WORDS = [
  'on',
  'No',
  'null',
  '~',
  '1.10',
  '0x1F',
  '1_000',
  '12:30',
  '2026-11-29',
  '.inf',
  '',
  ' padded ',
  'a: b',
  'a #b',
  '#x',
  '-dash',
  '- item',
  '*star',
  '&amp',
  '!bang',
  '%pct',
  '@at',
  '`tick',
  '"quoted"',
  "it's",
  'x:',
  'key=value',
  'app.kubernetes.io/name',
  'line one\nline two',
  'trailing\n',
  'tab\there',
  'ünïcode',
  'a,b',
  '[x]',
  '{y}',
  'example.com/app:1.0',
];

const word = fc.oneof(fc.constantFrom(...WORDS), fc.string(), fc.string({ unit: 'grapheme-ascii' }));
const scalar = fc.oneof(
  word,
  fc.integer(),
  fc.double({ noNaN: true }),
  fc.constantFrom(0, -0, 0.5, 1e21, 1e-7, 2 ** 53),
  fc.boolean(),
  fc.constant(null),
);
const { value } = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    scalar,
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(word, tie('value'), { maxKeys: 5 }),
  ),
}));
const document = fc.dictionary(word, value, { maxKeys: 6 });

describe('toYamlStream writes what the yaml library writes', () => {
  it('for random JSON documents, byte for byte', () => {
    fc.assert(
      fc.property(fc.array(document, { minLength: 1, maxLength: 3 }), (docs) => {
        expect(toYamlStream(docs as unknown as RenderedObject[])).toBe(byLibrary(docs));
      }),
      { numRuns: 500 },
    );
  });

  it('for every golden case', () => {
    for (const [name, input] of Object.entries(GOLDEN_CASES)) {
      const objects = renderDeployment(input()).objects;
      expect(toYamlStream(objects), name).toBe(byLibrary(objects));
    }
  });
});
