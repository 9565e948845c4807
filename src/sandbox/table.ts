/**
 * `meta.k8s.io/v1` Table responses, which kubectl asks for (`Accept: ...;as=Table`, answer-form.ts) to print
 * `kubectl get` columns the way a real server's printers define them. Like kube-apiserver, the
 * server always prints wide (every column's cell, `-o wide` ones included) and kubectl hides the
 * priority-1 columns unless asked; kinds without a printer get the default Name / Created At.
 */
import { partialMetadata } from './answer-form.ts';
import { type Column, col, NAME } from './table-column.ts';
import { CORE_COLUMNS } from './table-core.ts';
import { OTHER_COLUMNS } from './table-other.ts';
import { POD_COLUMNS } from './table-pod.ts';
import { WORKLOAD_COLUMNS } from './table-workloads.ts';
import type { KubeObject, StoredObject } from './types.ts';

const COLUMNS: Readonly<Record<string, Column[]>> = {
  ...WORKLOAD_COLUMNS,
  ...CORE_COLUMNS,
  ...OTHER_COLUMNS,
  Pod: POD_COLUMNS,
};

/** The apiserver's default table convertor: the creation time as RFC 3339, not an age. */
const DEFAULT_COLUMNS: Column[] = [
  NAME,
  col('Created At', (o) => o.metadata.creationTimestamp ?? '', {
    type: 'date',
    description:
      'CreationTimestamp is a timestamp representing the server time when this object was created.',
  }),
];

/**
 * What each row's `object` carries (the `includeObject` parameter): metadata by default, the whole
 * object (kubectl asks for it to `--sort-by` a field), or nothing.
 */
export type IncludeObject = 'None' | 'Metadata' | 'Object';

/** The request's `includeObject` value; anything else is Metadata, the server's default. */
export function includeObjectOf(query: URLSearchParams): IncludeObject {
  const v = query.get('includeObject');
  return v === 'None' || v === 'Object' ? v : 'Metadata';
}

function rowObject(o: StoredObject, include: IncludeObject): KubeObject | undefined {
  if (include === 'None') return undefined;
  return include === 'Object' ? o : partialMetadata(o);
}

/** A Table of `objects` with the kind's columns; `resourceVersion`/`continue` copied from the list. */
export function toTable(
  kind: string,
  objects: StoredObject[],
  listMeta: Record<string, unknown>,
  now: Date,
  include: IncludeObject = 'Metadata',
): KubeObject {
  const columns = COLUMNS[kind] ?? DEFAULT_COLUMNS;
  return {
    kind: 'Table',
    apiVersion: 'meta.k8s.io/v1',
    metadata: listMeta,
    columnDefinitions: columns.map(({ cell: _cell, ...c }) => c),
    rows: objects.map((o) => {
      const object = rowObject(o, include);
      const cells = columns.map((c) => c.cell(o, now));
      return object === undefined ? { cells } : { cells, object };
    }),
  };
}
