/**
 * Ownership before every write (ADR 0007). The agent writes an existing object only when it is the
 * desired object's own: an object whose `mooring.dev/deployment-id` label names another
 * deployment, or whose `mooring.dev/listener-id` label names another listener, belongs to them;
 * one that carries neither label and has no managedFields entry of our field manager was made by
 * somebody else (kubectl, Helm, an operator). Ours with its labels stripped by hand still has our
 * field manager's entry and is taken back, as before.
 *
 * Objects a listing found carry our listener's labels (the listing selects by them), so for them
 * this is a look at two labels, no request. What a complete listing does not hold is read first
 * (one GET each) and judged here before anything is written.
 */
import { TerminalError } from '../errors.ts';
import { LABELS } from '../labels.ts';
import { objectId } from '../objects/object-id.ts';
import type { KubeObject } from '../objects/kube-object.ts';

/** Who owns an object that is not ours to write. */
export interface ForeignOwner {
  /** As messages name it: `deployment <id>`, `listener <id>`, `another manager (kubectl-create)`. */
  owner: string;
  deploymentId?: string;
  listenerId?: string;
  /** The field managers of an object someone else made. */
  managers?: string[];
}

function label(obj: KubeObject, key: string): string | undefined {
  const value = obj.metadata.labels?.[key];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** The managers of `live`'s managedFields, status entries aside, in order and once each. */
function managersOf(live: KubeObject): string[] {
  const out: string[] = [];
  for (const e of live.metadata.managedFields ?? []) {
    if (!e.manager || (e.subresource && e.subresource !== '') || out.includes(e.manager)) continue;
    out.push(e.manager);
  }
  return out;
}

/**
 * Who, other than `desired`'s deployment on `desired`'s listener, owns `live`; undefined when it
 * is ours to write.
 */
export function foreignOwner(
  live: KubeObject,
  desired: KubeObject,
  fieldManager: string,
): ForeignOwner | undefined {
  const deploymentId = label(live, LABELS.deploymentId);
  const listenerId = label(live, LABELS.listenerId);
  const otherDeployment = deploymentId !== undefined && deploymentId !== label(desired, LABELS.deploymentId);
  const otherListener = listenerId !== undefined && listenerId !== label(desired, LABELS.listenerId);
  if (otherDeployment || otherListener) {
    const out: ForeignOwner = { owner: '' };
    if (deploymentId !== undefined) out.deploymentId = deploymentId;
    if (listenerId !== undefined) out.listenerId = listenerId;
    out.owner =
      deploymentId !== undefined && otherDeployment
        ? `deployment ${deploymentId}${otherListener ? ` of listener ${listenerId}` : ''}`
        : `listener ${listenerId}`;
    return out;
  }
  if (deploymentId !== undefined || listenerId !== undefined) return undefined;
  const managers = managersOf(live);
  if (managers.includes(fieldManager)) return undefined;
  return {
    owner: `another manager${managers.length > 0 ? ` (${managers.join(', ')})` : ''}`,
    managers,
  };
}

/** The refusal of a write to `live`, owned by `foreign`: terminal until the next resync (ADR 0007). */
export function ownershipError(live: KubeObject, desired: KubeObject, foreign: ForeignOwner): TerminalError {
  const id = objectId(desired);
  const mine = label(desired, LABELS.deploymentId);
  const details: Record<string, unknown> = { id, owner: foreign.owner };
  if (foreign.deploymentId !== undefined) details.ownerDeploymentId = foreign.deploymentId;
  if (foreign.listenerId !== undefined) details.ownerListenerId = foreign.listenerId;
  if (foreign.managers !== undefined) details.managers = foreign.managers;
  if (live.metadata.uid) details.uid = live.metadata.uid;
  return new TerminalError(
    'MOORING_E_KUBE_OWNERSHIP',
    `${id}: exists and belongs to ${foreign.owner}; nothing ${mine ? `of deployment ${mine} ` : ''}written`,
    { details },
  );
}

/** Throws the refusal when `live` is not ours to write (see the module comment). */
export function checkOwnership(
  live: KubeObject | undefined,
  desired: KubeObject,
  fieldManager: string,
): void {
  if (!live) return;
  const foreign = foreignOwner(live, desired, fieldManager);
  if (foreign) throw ownershipError(live, desired, foreign);
}
