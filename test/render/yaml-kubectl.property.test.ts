/**
 * `mooring render -o yaml` is read by YAML 1.1 clients (kubectl, through sigs.k8s.io/yaml): every
 * string must come back as the same string, never a bool, number, null or timestamp. Random
 * label, annotation and env strings go through `toYamlStream` and real
 * `kubectl create --dry-run=client --validate=false -o json`.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderDeployment } from '../../src/render/index.ts';
import { toYamlStream } from '../../src/render/serialize.ts';
import { type Sandbox, startSandbox } from '../sandbox/helpers.ts';
import { deployment, settings } from './fixtures.ts';

/** Strings YAML 1.1 (or Go's number parsing) reads as something else, all valid label values. */
const TRICKY_LABEL_VALUES = [
  'on',
  'off',
  'yes',
  'no',
  'y',
  'n',
  'Y',
  'N',
  'true',
  'False',
  'ON',
  'Yes',
  'null',
  'NULL',
  '1.10',
  '0x1F',
  '1e3',
  '012',
  '0o12',
  '0b101',
  '1_000',
  '2001-12-14',
  '123',
  '1.5e-3',
  '190',
  '08',
  '1-2',
];
/** More that are not valid label values but may be annotation or env values. */
const TRICKY_VALUES = [
  ...TRICKY_LABEL_VALUES,
  '0.',
  '-1',
  '~',
  '',
  '=',
  '<<',
  '.inf',
  '-.Inf',
  '.NaN',
  '1:20',
  '190:20:30',
  '2001-12-14t21:59:43.10-05:00',
  '2001-12-14 21:59:43.10 -5',
  '+12',
  '.5',
  '- x',
  '? y',
  ': z',
  '#c',
  '@at',
  '`tick',
  '|',
  '>',
  '!tag',
  '%dir',
  '&a',
  '*a',
  'a: b',
  'a #b',
  ' lead',
  'trail ',
  'multi\nline',
  '"q"',
  "'s'",
  '[1]',
  '{a: 1}',
];

const labelValue = fc.oneof(
  fc.constantFrom(...TRICKY_LABEL_VALUES),
  fc.stringMatching(/^[a-zA-Z0-9]([-a-zA-Z0-9_.]{0,10}[a-zA-Z0-9])?$/),
);
/** Label keys a YAML 1.1 reader would take for a bool or null (a key must stay a string too). */
const labelKey = fc.constantFrom('on', 'yes', 'n', 'off', 'true', 'null', 'y', 'example.com/on');
const anyValue = fc.oneof(fc.constantFrom(...TRICKY_VALUES), fc.string({ maxLength: 12 }));

/** kubectl prints one JSON document per object, back to back. */
function jsonStream(text: string): unknown[] {
  const out: unknown[] = [];
  let depth = 0;
  let start = -1;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{') {
      if (depth++ === 0) start = i;
    } else if (c === '}' && --depth === 0) out.push(JSON.parse(text.slice(start, i + 1)));
  }
  return out;
}

type Live = {
  metadata: { labels?: Record<string, string>; annotations?: Record<string, string>; name: string };
};

describe('render -o yaml through real kubectl: every string comes back the same, keys included', {
  timeout: 120_000,
}, () => {
  let sb: Sandbox;
  beforeAll(async () => {
    sb = await startSandbox({ namespaces: ['apps'] });
  });
  afterAll(async () => {
    await sb?.close();
  });

  it('label keys and values, annotations and env values', async () => {
    await fc.assert(
      fc.asyncProperty(labelKey, labelValue, anyValue, anyValue, async (key, label, annotation, env) => {
        const { objects } = renderDeployment({
          deployment: deployment({
            name: 'quoted',
            spec: {
              labels: { team: label, [key]: 'k' },
              annotations: { 'example.com/note': annotation },
              sidecars: [{ name: 'side', image: 'busybox:1.36', env: [{ name: 'VALUE', value: env }] }],
            },
          }),
          settings: settings(),
        });
        const res = await sb.kubectl(
          ['create', '--dry-run=client', '--validate=false', '-o', 'json', '-f', '-'],
          toYamlStream(objects),
        );
        expect(res.code, res.stderr).toBe(0);
        const items = jsonStream(res.stdout) as Live[];
        expect(items).toHaveLength(objects.length);
        const api = items.find(
          (o) => (o as unknown as { kind: string }).kind === 'Deployment' && o.metadata.name === 'quoted',
        ) as unknown as Live & {
          spec: {
            template: { metadata: Live['metadata']; spec: { containers: { env?: { value?: string }[] }[] } };
          };
        };
        expect(api.metadata.labels?.team).toBe(label);
        expect(api.metadata.labels?.[key]).toBe('k');
        expect(api.spec.template.metadata.annotations?.['example.com/note']).toBe(annotation);
        const side = api.spec.template.spec.containers[1]!;
        expect(side.env?.[0]?.value ?? '').toBe(env);
      }),
      { numRuns: 40 },
    );
  });
});
