/**
 * Reading field ownership from managedFields (the `FieldsV1` trie: `f:name` fields, `k:{...}`
 * list keys, `v:value` set members, `i:N` indexes, `.` for the node itself). Used to report which
 * fields a forced apply took from another manager, and to check that mooring manages an object
 * before ever deleting it.
 */
import type { KubeObject, ManagedFieldsEntry } from '../objects/kube-object.ts';

function segment(key: string): string {
  if (key.startsWith('f:')) return `.${key.slice(2)}`;
  if (key.startsWith('k:')) {
    try {
      const parsed = JSON.parse(key.slice(2)) as Record<string, unknown>;
      return `[${Object.entries(parsed)
        .map(([k, v]) => `${k}=${String(v)}`)
        .join(',')}]`;
    } catch {
      return `[${key.slice(2)}]`;
    }
  }
  if (key.startsWith('v:')) return `[=${key.slice(2)}]`;
  if (key.startsWith('i:')) return `[${key.slice(2)}]`;
  return `.${key}`;
}

/** The leaf paths a FieldsV1 trie names, e.g. `.spec.replicas`, `.spec.template.spec.containers[name=api].image`. */
export function fieldPaths(fields: Record<string, unknown> | undefined, prefix = ''): string[] {
  if (!fields) return [];
  const out: string[] = [];
  const keys = Object.keys(fields);
  if (keys.length === 0 || keys.includes('.')) {
    if (prefix) out.push(prefix);
  }
  for (const key of keys) {
    if (key === '.') continue;
    const child = fields[key];
    out.push(...fieldPaths((child ?? {}) as Record<string, unknown>, prefix + segment(key)));
  }
  return out;
}

/** Paths per manager (subresource entries such as `status` are ignored: we never apply those). */
export function ownersOf(obj: Pick<KubeObject, 'metadata'> | undefined): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const entry of (obj?.metadata.managedFields ?? []) as ManagedFieldsEntry[]) {
    if (!entry.manager || (entry.subresource && entry.subresource !== '')) continue;
    const set = out.get(entry.manager) ?? new Set<string>();
    for (const p of fieldPaths(entry.fieldsV1)) set.add(p);
    out.set(entry.manager, set);
  }
  return out;
}

/** True when `manager` has any managedFields entry on the object. */
export function isManagedBy(obj: KubeObject, manager: string): boolean {
  return (obj.metadata.managedFields ?? []).some((e) => e.manager === manager);
}

/** True when `manager` owns exactly the field `path` (e.g. `.spec.replicas`). */
export function ownsField(obj: KubeObject, manager: string, path: string): boolean {
  return ownersOf(obj).get(manager)?.has(path) ?? false;
}

/**
 * The fields other managers owned before and lost after our apply, when we own them after:
 * what a forced apply took. Empty when nothing was taken.
 */
export function takenFields(
  before: KubeObject | undefined,
  after: KubeObject,
  us: string,
): Array<{ manager: string; fields: string[] }> {
  // Nothing was owned before a create, so nothing can have been taken.
  if (!before?.metadata.managedFields?.length) return [];
  const was = ownersOf(before);
  const now = ownersOf(after);
  const ours = now.get(us) ?? new Set<string>();
  const out: Array<{ manager: string; fields: string[] }> = [];
  for (const [manager, paths] of was) {
    if (manager === us) continue;
    const still = now.get(manager) ?? new Set<string>();
    const taken = [...paths].filter((p) => !still.has(p) && ours.has(p)).sort();
    if (taken.length > 0) out.push({ manager, fields: taken });
  }
  return out;
}
