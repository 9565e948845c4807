import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { chartDir } from '../../scripts/render-deploy.ts';
import { SETTINGS } from '../../src/config.ts';
import {
  EXPOSURE_LEFTOVER_PERMISSIONS,
  EXPOSURE_PERMISSIONS,
  type Permission,
  WATCHED_NAMESPACE_PERMISSIONS,
} from './rbac.ts';

const readme = readFileSync(path.join(chartDir, 'README.md'), 'utf8');
const values = parse(readFileSync(path.join(chartDir, 'values.yaml'), 'utf8')) as Record<string, unknown>;
const schema = JSON.parse(readFileSync(path.join(chartDir, 'values.schema.json'), 'utf8')) as SchemaNode;

interface SchemaNode {
  properties?: Record<string, SchemaNode>;
  required?: string[];
}

/** Required values have no default, so values.yaml does not hold them. */
const REQUIRED = ['controlPlane.url', 'listenerId', 'namespaces'];

/** Values documented as one map, not key by key. */
const WHOLE_MAPS = new Set(['resources', 'podSecurityContext', 'securityContext']);

/** Dotted keys of values.yaml; the maps of {@link WHOLE_MAPS} are documented as one value each. */
function leafKeys(node: Record<string, unknown>, prefix = ''): string[] {
  return Object.entries(node).flatMap(([key, value]) => {
    const full = prefix + key;
    const isMap = value !== null && typeof value === 'object' && !Array.isArray(value);
    return isMap && Object.keys(value).length > 0 && !WHOLE_MAPS.has(key)
      ? leafKeys(value as Record<string, unknown>, `${full}.`)
      : [full];
  });
}

function schemaHas(key: string): boolean {
  let node: SchemaNode | undefined = schema;
  for (const part of key.split('.')) node = node?.properties?.[part];
  return node !== undefined;
}

/** Rows of the markdown table that follows `heading`, as arrays of trimmed cells. */
function tableAfter(heading: string): string[][] {
  const start = readme.indexOf(heading);
  expect(start, heading).toBeGreaterThanOrEqual(0);
  const lines = readme.slice(start).split('\n').slice(1);
  const first = lines.findIndex((l) => l.startsWith('|'));
  const rows: string[][] = [];
  for (const line of lines.slice(first + 2)) {
    if (!line.startsWith('|')) break;
    rows.push(
      line
        .split('|')
        .slice(1, -1)
        .map((c) => c.trim()),
    );
  }
  return rows;
}

describe('the chart README documents what the chart does', () => {
  const keys = [...leafKeys(values), ...REQUIRED].sort();

  it('lists every value exactly once in its values table, and no value that does not exist', () => {
    const documented = tableAfter('## Values').map((row) => row[0]!.replaceAll('`', ''));
    expect(new Set(documented).size).toBe(documented.length);
    expect([...documented].sort()).toEqual(keys);
  });

  it('has every value in values.schema.json', () => {
    expect(keys.filter((k) => !schemaHas(k))).toEqual([]);
    expect(schema.required?.sort()).toEqual(['controlPlane', 'listenerId', 'namespaces']);
  });

  it('states the watched-namespace permissions the RBAC test holds the chart to', () => {
    const rows = tableAfter('In **each namespace of `namespaces`**').map(([group, resource, verbs]) => ({
      group: group!.startsWith('`""`') ? '' : group!.replaceAll('`', ''),
      resource: resource!.split(' ')[0]!.replaceAll('`', ''),
      verbs: verbs!.split(', '),
    }));
    expect(rows).toEqual(
      WATCHED_NAMESPACE_PERMISSIONS.map((p) => ({
        group: p.group,
        resource: p.resource,
        verbs: [...p.verbs],
      })),
    );
  });

  /** The rows of the permissions table after `heading`, and what `permissions` say they are. */
  const exposureTable = (heading: string, permissions: Record<string, Permission>) => ({
    rows: tableAfter(heading).map(([group, resource, verbs, why]) => ({
      group: group!.replaceAll('`', ''),
      resource: resource!.replaceAll('`', ''),
      verbs: verbs!.split(', '),
      why,
    })),
    documented: Object.values(permissions).map((p) => ({
      group: p.group,
      resource: p.resource,
      verbs: [...p.verbs],
      why: p.why,
    })),
  });

  it('states the permissions on the exposure kinds not in use that the RBAC test holds the chart to', () => {
    const { rows, documented } = exposureTable(
      'With any **other exposure kind**',
      EXPOSURE_LEFTOVER_PERMISSIONS,
    );
    expect(rows).toEqual(documented);
  });

  it('states the exposure permissions the RBAC test holds the chart to', () => {
    const { rows, documented } = exposureTable('With **exposure on**', EXPOSURE_PERMISSIONS);
    expect(rows).toEqual(documented);
  });
});

/** The value at a dotted key of values.yaml. */
function valueAt(key: string): unknown {
  let node: unknown = values;
  for (const part of key.split('.')) node = (node as Record<string, unknown> | undefined)?.[part];
  return node;
}

/** How the README's default column writes a value: `15`, `false`, `""`, `[]`, `{}`, `text`. */
function asDefaultCell(value: unknown): string {
  if (typeof value === 'string') return value === '' ? '`""`' : `\`${value}\``;
  return `\`${JSON.stringify(value)}\``;
}

describe("the chart README's default column is values.yaml", () => {
  const rows = tableAfter('## Values');

  it.each(
    rows.filter(([, cell]) => cell !== '(required)').map(([key, cell]) => [key!.replaceAll('`', ''), cell!]),
  )('%s', (key, cell) => {
    if (key === 'resources') {
      const r = valueAt('resources') as { requests: Record<string, string>; limits: Record<string, string> };
      expect(cell).toBe(
        `requests \`${r.requests.cpu}\`/\`${r.requests.memory}\`, limits \`${r.limits.cpu}\`/\`${r.limits.memory}\``,
      );
      return;
    }
    if (!cell.includes('`')) {
      // A structured default described in words ("kube-dns in kube-system"): each name it gives is in it.
      const names = cell.split(/\s+/).filter((w) => !['in', 'and', 'of', 'the'].includes(w));
      for (const name of names) expect(JSON.stringify(valueAt(key))).toContain(name);
      return;
    }
    expect(cell.replaceAll(', ', ',')).toBe(asDefaultCell(valueAt(key)));
  });
});

describe('the chart says what the agent does with the poll interval', () => {
  // The agent's own description of its poll jitter (sooner only: a change is never seen later).
  const setting = SETTINGS.find((s) => s.key === 'pollInterval')!;
  const jitter = /\(jittered ([^)]*)\)/.exec(setting.description)?.[1];

  it('in the README and in values.yaml', () => {
    expect(jitter).toBe('up to 10% sooner');
    const row = tableAfter('## Values').find(([key]) => key === '`pollIntervalSeconds`');
    expect(row?.[2]).toContain(`jittered ${jitter}`);
    const comment = readFileSync(path.join(chartDir, 'values.yaml'), 'utf8')
      .split('\n')
      .find((l) => l.startsWith('# -- Seconds between polls'));
    expect(comment).toContain(`jittered ${jitter}`);
  });
});
