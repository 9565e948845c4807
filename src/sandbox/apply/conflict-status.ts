/**
 * The 409 an apiserver answers for apply conflicts: the message and the StatusCause list, worded
 * as k8s.io/apimachinery `managedfields/internal/conflict.go` words them.
 */
import { managerId } from './managed-fields.ts';
import type { Conflict } from './types.ts';

/** `"name"`, plus ` with subresource "s"`, plus ` using <apiVersion>` for Update managers. */
function printManager(c: Conflict): string {
  let s = JSON.stringify(c.manager);
  if (c.subresource) s += ` with subresource ${JSON.stringify(c.subresource)}`;
  if (c.operation !== 'Apply' && c.apiVersion) s += ` using ${c.apiVersion}`;
  return s;
}

function identity(c: Conflict): string {
  return managerId(c.manager, c.operation ?? 'Update', c.apiVersion, c.subresource);
}

/**
 * Formats apply conflicts as a Kubernetes Status message and causes, e.g.
 * `Apply failed with 1 conflict: conflict with "kubectl-client-side-apply" using apps/v1: .spec.replicas`
 * and `[{ type: 'FieldManagerConflict', message: 'conflict with "…" using apps/v1', field: '.spec.replicas' }]`.
 * With several conflicts the message groups paths under each manager, managers sorted.
 */
export function conflictStatus(conflicts: Conflict[]): {
  message: string;
  causes: { type: string; message: string; field: string }[];
} {
  const causes = conflicts.map((c) => ({
    type: 'FieldManagerConflict',
    message: `conflict with ${printManager(c)}`,
    field: c.field,
  }));
  if (conflicts.length === 1) {
    const c = conflicts[0] as Conflict;
    return { message: `Apply failed with 1 conflict: conflict with ${printManager(c)}: ${c.field}`, causes };
  }
  const groups = new Map<string, { printed: string; fields: string[] }>();
  for (const c of conflicts) {
    const id = identity(c);
    const g = groups.get(id);
    if (g) g.fields.push(c.field);
    else groups.set(id, { printed: printManager(c), fields: [c.field] });
  }
  const lines: string[] = [];
  for (const id of [...groups.keys()].sort()) {
    const g = groups.get(id) as { printed: string; fields: string[] };
    lines.push(`conflicts with ${g.printed}:`);
    for (const f of g.fields) lines.push(`- ${f}`);
  }
  return { message: `Apply failed with ${conflicts.length} conflicts: ${lines.join('\n')}`, causes };
}
