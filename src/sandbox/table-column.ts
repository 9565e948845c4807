/**
 * The pieces every kind's Table columns are made of: a column definition with the function that
 * fills its cell, and the cell formats kube-apiserver's printers share (ages, label selectors,
 * container lists).
 */
import { since } from './human-duration.ts';
import type { StoredObject } from './types.ts';

export type Obj = Record<string, unknown>;

/** One `columnDefinitions` entry and how to fill its cell for an object. */
export interface Column {
  name: string;
  type: string;
  format: string;
  description: string;
  /** 0: shown by `kubectl get`; 1: only with `-o wide`. The server sends the cells of both. */
  priority: number;
  cell: (o: StoredObject, now: Date) => unknown;
}

/** A column; `priority` 1 for the `-o wide` ones. */
export function col(
  name: string,
  cell: Column['cell'],
  opts: { type?: string; priority?: number; format?: string; description?: string } = {},
): Column {
  return {
    name,
    type: opts.type ?? 'string',
    format: opts.format ?? '',
    description: opts.description ?? name,
    priority: opts.priority ?? 0,
    cell,
  };
}

/** The same column shown only with `-o wide`. */
export function wide(name: string, cell: Column['cell'], type = 'string'): Column {
  return col(name, cell, { type, priority: 1 });
}

export const NAME = col('Name', (o) => o.metadata.name ?? '', {
  format: 'name',
  description:
    'Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names',
});

export const AGE = col('Age', (o, now) => since(o.metadata.creationTimestamp, now), {
  description:
    'CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata',
});

export function obj(v: unknown): Obj {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {};
}
export function list(v: unknown): Obj[] {
  return Array.isArray(v) ? (v as Obj[]).map(obj) : [];
}
export function spec(o: StoredObject): Obj {
  return obj(o.spec);
}
export function status(o: StoredObject): Obj {
  return obj(o.status);
}
export function num(v: unknown): number {
  return typeof v === 'number' ? v : 0;
}
export function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

/** labels.FormatLabels: `k=v` sorted by key, `<none>` when empty. */
export function formatLabels(labels: unknown): string {
  const entries = Object.entries(obj(labels)).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return entries.length === 0 ? '<none>' : entries.map(([k, v]) => `${k}=${String(v)}`).join(',');
}

/**
 * A LabelSelector as its selector string (requirements sorted by key: `app=web`, `tier in (a,b)`,
 * `!canary`); '' when it selects everything or nothing, undefined when an operator is unknown.
 */
export function selectorString(selector: unknown): string | undefined {
  const sel = obj(selector);
  const reqs: { key: string; text: string }[] = Object.entries(obj(sel.matchLabels)).map(([k, v]) => ({
    key: k,
    text: `${k}=${String(v)}`,
  }));
  for (const e of list(sel.matchExpressions)) {
    const key = str(e.key);
    const values = (Array.isArray(e.values) ? (e.values as unknown[]).map(String) : []).sort();
    const texts: Record<string, string> = {
      In: `${key} in (${values.join(',')})`,
      NotIn: `${key} notin (${values.join(',')})`,
      Exists: key,
      DoesNotExist: `!${key}`,
    };
    const text = texts[str(e.operator)];
    if (text === undefined) return undefined;
    reqs.push({ key, text });
  }
  return reqs
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
    .map((r) => r.text)
    .join(',');
}

/** metav1.FormatLabelSelector: the selector string, `<none>` when empty, `<error>` when invalid. */
export function formatLabelSelector(selector: unknown): string {
  const s = selectorString(selector);
  return s === undefined ? '<error>' : s === '' ? '<none>' : s;
}

/** The CONTAINERS and IMAGES cells of a pod template: names and images, comma-separated. */
export function containerCells(template: unknown): { names: string; images: string } {
  const containers = list(obj(obj(template).spec).containers);
  return {
    names: containers.map((c) => str(c.name)).join(','),
    images: containers.map((c) => str(c.image)).join(','),
  };
}

/** The wide CONTAINERS and IMAGES columns of a workload whose pod template is `spec.template`. */
export const TEMPLATE_CONTAINERS: Column[] = [
  wide('Containers', (o) => containerCells(spec(o).template).names),
  wide('Images', (o) => containerCells(spec(o).template).images),
];
