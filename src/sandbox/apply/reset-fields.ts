/**
 * Fields a write may not set through a given endpoint, from the registry strategies'
 * `GetResetFields`: the main resource of a kind with a status subresource resets `status`; the
 * `status` subresource resets `spec` (and, for Deployments, `metadata.labels`). These fields are
 * never owned by that write, never conflict, and keep their live values.
 */
import { type FieldSet, insertPath } from './field-set.ts';

const STATUS_KINDS = new Set([
  'Namespace',
  'Service',
  'PersistentVolumeClaim',
  'Deployment',
  'StatefulSet',
  'HorizontalPodAutoscaler',
  'PodDisruptionBudget',
]);

/** The reset paths (as field names from the root) for a kind and subresource. */
export function resetPaths(kind: string, subresource: string | undefined): string[][] {
  if (!STATUS_KINDS.has(kind)) return [];
  if (subresource === undefined || subresource === '') return [['status']];
  if (subresource !== 'status') return [];
  return kind === 'Deployment' ? [['spec'], ['metadata', 'labels']] : [['spec']];
}

/** The reset paths as a field set, for excluding them (recursively) from ownership. */
export function resetSet(kind: string, subresource: string | undefined): FieldSet | undefined {
  const paths = resetPaths(kind, subresource);
  if (paths.length === 0) return undefined;
  const s: FieldSet = new Map();
  for (const p of paths)
    insertPath(
      s,
      p.map((f) => `f:${f}`),
    );
  return s;
}

type Obj = Record<string, unknown>;

/** Puts the live values of the reset paths back into obj (a fresh copy the caller owns). */
export function restoreReset(obj: Obj, live: Obj | undefined, paths: string[][]): void {
  for (const path of paths) {
    let dst: Obj | undefined = obj;
    let src: Obj | undefined = live;
    for (let i = 0; i < path.length - 1 && dst; i++) {
      const k = path[i] as string;
      const next: unknown = dst[k];
      dst = next !== null && typeof next === 'object' ? (next as Obj) : undefined;
      const s: unknown = src?.[k];
      src = s !== null && typeof s === 'object' ? (s as Obj) : undefined;
    }
    if (!dst) continue;
    const last = path[path.length - 1] as string;
    const v = src?.[last];
    if (v === undefined) delete dst[last];
    else dst[last] = v;
  }
}
