/**
 * Listed objects, reduced to what the agent reads from them. A cycle's listing holds every owned
 * object until the cycle's reconciles have used it, and most of each object's memory is its
 * managedFields (a tree of one empty object per field, per manager): at 12,000 objects that was
 * most of the agent's heap. What is read from a live object's managedFields is:
 * - other managers' fields (not the status subresource's), to report fields a forced apply took
 *   (`takenFields`);
 * - whether our own manager owns `.spec.replicas` (the autoscaler hand-over, `ownsField`).
 * So other managers' non-status entries are kept whole, our own entry keeps only
 * `f:spec.f:replicas` when it has it, and status-subresource entries go. Everything else (spec,
 * metadata, status) is kept as listed.
 */
import type { KubeObject, ManagedFieldsEntry } from './types.ts';

function replicasOnly(fields: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  const spec = fields?.['f:spec'] as Record<string, unknown> | undefined;
  return spec && 'f:replicas' in spec ? { 'f:spec': { 'f:replicas': {} } } : undefined;
}

/** The listed object with its managedFields reduced (in place; returns it). */
export function compactLive(obj: KubeObject, fieldManager: string): KubeObject {
  const entries = obj.metadata.managedFields;
  if (!Array.isArray(entries)) return obj;
  const kept: ManagedFieldsEntry[] = [];
  for (const e of entries) {
    if (e.subresource) continue;
    if (e.manager !== fieldManager) {
      kept.push(e);
      continue;
    }
    const replicas = replicasOnly(e.fieldsV1);
    const reduced: ManagedFieldsEntry = { manager: e.manager };
    if (e.operation) reduced.operation = e.operation;
    if (replicas) {
      reduced.fieldsType = 'FieldsV1';
      reduced.fieldsV1 = replicas;
    }
    kept.push(reduced);
  }
  obj.metadata.managedFields = kept;
  return obj;
}
