/**
 * What each of the agent's holders keeps, from a V8 heap snapshot (`.heapsnapshot`, written with
 * `--heapsnapshot-signal`): for every instance of the classes named on the command line, the bytes
 * reachable from each of its fields. A walk stops at functions, code, hidden classes and the
 * instances of the other named classes, so each figure is that field's data; a string or object
 * reached from two fields counts in both (as in the table of bench/README.md, "Memory budget").
 *
 *   node bench/heap-holders.ts --snapshot FILE [--class Poller --class DesiredBook ...] [--json]
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

/** The classes whose fields are reported, unless `--class` names others. */
const DEFAULT_CLASSES = [
  'Poller',
  'DesiredBook',
  'DesiredResolver',
  'StatusStore',
  'RunLog',
  'Redactor',
  'ObservedState',
  'ResourceManager',
  'MemoryBudget',
  'Runner',
  'Deployments',
  'RestartMemoKeeper',
];

interface Snapshot {
  snapshot: {
    meta: {
      node_fields: string[];
      node_types: [string[], ...unknown[]];
      edge_fields: string[];
      edge_types: [string[], ...unknown[]];
    };
  };
  nodes: number[];
  edges: number[];
  strings: string[];
}

/** One field's figure. */
export interface HolderFigure {
  holder: string;
  bytes: number;
  objects: number;
}

/** Bytes reachable from each field of each instance of `classes` in `snap`, largest first. */
export function holders(snap: Snapshot, classes: readonly string[]): HolderFigure[] {
  const { meta } = snap.snapshot;
  const nf = meta.node_fields.length;
  const ef = meta.edge_fields.length;
  const nType = meta.node_fields.indexOf('type');
  const nName = meta.node_fields.indexOf('name');
  const nSize = meta.node_fields.indexOf('self_size');
  const nEdges = meta.node_fields.indexOf('edge_count');
  const eType = meta.edge_fields.indexOf('type');
  const eName = meta.edge_fields.indexOf('name_or_index');
  const eTo = meta.edge_fields.indexOf('to_node');
  const nodeTypes = meta.node_types[0];
  const edgeTypes = meta.edge_types[0];
  const { nodes, edges, strings } = snap;
  const count = nodes.length / nf;
  const firstEdge = new Uint32Array(count + 1);
  for (let i = 0, e = 0; i < count; i++) {
    firstEdge[i] = e;
    e += (nodes[i * nf + nEdges] as number) * ef;
  }
  firstEdge[count] = edges.length;
  const typeOf = (i: number) => nodeTypes[nodes[i * nf + nType] as number] ?? '';
  const nameOf = (i: number) => strings[nodes[i * nf + nName] as number] ?? '';
  const named = new Set(classes);
  // Not data: what a walk must not enter (it would reach the whole program).
  const stopTypes = new Set(['closure', 'code', 'hidden', 'synthetic', 'native']);
  const isHolder = (i: number) => typeOf(i) === 'object' && named.has(nameOf(i));
  const seen = new Uint32Array(count);
  let mark = 0;
  const walk = (start: number): { bytes: number; objects: number } => {
    mark += 1;
    let bytes = 0;
    let objects = 0;
    const stack = [start];
    while (stack.length > 0) {
      const i = stack.pop() as number;
      if (seen[i] === mark) continue;
      seen[i] = mark;
      if (stopTypes.has(typeOf(i)) || (i !== start && isHolder(i))) continue;
      bytes += nodes[i * nf + nSize] as number;
      objects += 1;
      for (let e = firstEdge[i] as number; e < (firstEdge[i + 1] as number); e += ef) {
        const type = edgeTypes[edges[e + eType] as number];
        if (type === 'weak' || type === 'shortcut') continue;
        // The hidden class and the prototype chain are the program's, not the data's.
        const name =
          type === 'element' || type === 'hidden' ? '' : (strings[edges[e + eName] as number] ?? '');
        if (name === 'map' || name === '__proto__') continue;
        stack.push((edges[e + eTo] as number) / nf);
      }
    }
    return { bytes, objects };
  };
  const out = new Map<string, HolderFigure>();
  for (let i = 0; i < count; i++) {
    if (!isHolder(i)) continue;
    for (let e = firstEdge[i] as number; e < (firstEdge[i + 1] as number); e += ef) {
      const type = edgeTypes[edges[e + eType] as number];
      if (type !== 'property' && type !== 'internal') continue;
      const field = strings[edges[e + eName] as number] ?? '';
      if (field === 'map' || field === '__proto__') continue;
      const { bytes, objects } = walk((edges[e + eTo] as number) / nf);
      const holder = `${nameOf(i)}.${field}`;
      const figure = out.get(holder) ?? { holder, bytes: 0, objects: 0 };
      figure.bytes += bytes;
      figure.objects += objects;
      out.set(holder, figure);
    }
  }
  let total = 0;
  for (let i = 0; i < count; i++) total += nodes[i * nf + nSize] as number;
  out.set('(whole heap)', { holder: '(whole heap)', bytes: total, objects: count });
  return [...out.values()].sort((a, b) => b.bytes - a.bytes);
}

function main(): void {
  const { values } = parseArgs({
    options: {
      snapshot: { type: 'string' },
      class: { type: 'string', multiple: true },
      json: { type: 'boolean', default: false },
      min: { type: 'string', default: '50000' },
    },
  });
  if (!values.snapshot) throw new Error('--snapshot FILE is required');
  const snap = JSON.parse(readFileSync(values.snapshot, 'utf8')) as Snapshot;
  const figures = holders(snap, values.class ?? DEFAULT_CLASSES).filter((f) => f.bytes >= Number(values.min));
  if (values.json) {
    process.stdout.write(`${JSON.stringify(figures, null, 2)}\n`);
    return;
  }
  for (const f of figures) {
    process.stdout.write(
      `${(f.bytes / 1e6).toFixed(2).padStart(8)} MB ${String(f.objects).padStart(9)}  ${f.holder}\n`,
    );
  }
}

if (import.meta.url === `file://${process.argv[1]}`) main();
