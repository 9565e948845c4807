/**
 * Health in the manner of kstatus: each live object is Progressing, Ready or Failed from its own
 * status, and a deployment rolls up to the worst of its objects, with a reason naming the object.
 */
import type { ErrorCode } from '../errors.ts';
import { objectId } from '../objects/object-id.ts';
import type { KubeObject } from '../objects/kube-object.ts';

export type HealthState = 'Progressing' | 'Ready' | 'Failed' | 'Deleting' | 'Deleted';

export interface ObjectHealth {
  id: string;
  state: 'Progressing' | 'Ready' | 'Failed';
  reason: string;
}

/** A deployment's health: state and a reason naming the object that decided it. */
export interface Health {
  state: HealthState;
  reason: string;
  /** Set for Failed: the code the failure is reported with. */
  code?: ErrorCode;
  objects?: ObjectHealth[];
}

interface Condition {
  type?: string;
  status?: string;
  reason?: string;
}

type Rec = Record<string, unknown>;

function num(v: unknown, fallback = 0): number {
  return typeof v === 'number' ? v : fallback;
}

function conditions(status: Rec): Condition[] {
  return Array.isArray(status.conditions) ? (status.conditions as Condition[]) : [];
}

function generationPending(obj: KubeObject, status: Rec): string | undefined {
  const generation = obj.metadata.generation;
  const observed = status.observedGeneration;
  if (typeof generation === 'number' && (typeof observed !== 'number' || observed < generation)) {
    return `waiting for the controller to observe generation ${generation}`;
  }
  return undefined;
}

function deployment(obj: KubeObject, spec: Rec, status: Rec): Omit<ObjectHealth, 'id'> {
  const progressing = conditions(status).find((c) => c.type === 'Progressing');
  if (progressing?.status === 'False' && progressing.reason === 'ProgressDeadlineExceeded') {
    return { state: 'Failed', reason: 'progress deadline exceeded' };
  }
  const pending = generationPending(obj, status);
  if (pending) return { state: 'Progressing', reason: pending };
  const want = num(spec.replicas, 1);
  const updated = num(status.updatedReplicas);
  const total = num(status.replicas);
  const available = num(status.availableReplicas);
  const ready = num(status.readyReplicas);
  if (updated < want) return { state: 'Progressing', reason: `${updated} of ${want} replicas updated` };
  if (total > updated)
    return { state: 'Progressing', reason: `${total - updated} old replicas pending termination` };
  if (available < updated)
    return { state: 'Progressing', reason: `${available} of ${updated} updated replicas available` };
  const availableCond = conditions(status).find((c) => c.type === 'Available');
  if (want > 0 && availableCond?.status !== 'True')
    return { state: 'Progressing', reason: 'not Available yet' };
  if (ready < want) return { state: 'Progressing', reason: `${ready} of ${want} replicas ready` };
  return { state: 'Ready', reason: want === 0 ? 'scaled to zero' : `${ready} of ${want} replicas ready` };
}

function statefulSet(obj: KubeObject, spec: Rec, status: Rec): Omit<ObjectHealth, 'id'> {
  const pending = generationPending(obj, status);
  if (pending) return { state: 'Progressing', reason: pending };
  const want = num(spec.replicas, 1);
  const ready = num(status.readyReplicas);
  if (ready < want) return { state: 'Progressing', reason: `${ready} of ${want} replicas ready` };
  const strategy = (spec.updateStrategy as Rec | undefined)?.type ?? 'RollingUpdate';
  if (
    strategy === 'RollingUpdate' &&
    status.updateRevision !== undefined &&
    status.currentRevision !== status.updateRevision
  ) {
    return { state: 'Progressing', reason: 'rolling update in progress' };
  }
  return { state: 'Ready', reason: want === 0 ? 'scaled to zero' : `${ready} of ${want} replicas ready` };
}

/** The health of one live object. Kinds without a rollout (Service, Secret, HPA, ...) are Ready when present. */
export function assessObject(obj: KubeObject): ObjectHealth {
  const id = objectId(obj);
  if (obj.metadata.deletionTimestamp) return { id, state: 'Progressing', reason: 'terminating' };
  const spec = (obj.spec ?? {}) as Rec;
  const status = (obj.status ?? {}) as Rec;
  switch (obj.kind) {
    case 'Deployment':
      return { id, ...deployment(obj, spec, status) };
    case 'StatefulSet':
      return { id, ...statefulSet(obj, spec, status) };
    default:
      return { id, state: 'Ready', reason: 'present' };
  }
}

const RANK: Record<ObjectHealth['state'], number> = { Failed: 2, Progressing: 1, Ready: 0 };

/**
 * The worst object decides; its id starts the reason. Of equally bad objects the first id in code
 * unit order does, so the reason does not depend on the order the objects came in (rendered or
 * listed: converged.ts).
 */
export function rollUp(objects: readonly ObjectHealth[]): Health {
  const tally = new HealthTally();
  for (const o of objects) tally.add(o);
  return { ...tally.health(), objects: [...objects] };
}

/** Health while deleting: Deleting while anything owned remains, then Deleted. */
export function deletionHealth(remaining: readonly KubeObject[]): Health {
  if (remaining.length === 0) return { state: 'Deleted', reason: 'no owned objects remain' };
  const first = remaining[0] as KubeObject;
  return { state: 'Deleting', reason: `${objectId(first)}: ${remaining.length} owned objects remain` };
}

/**
 * A deployment's health rolled up one object at a time, holding only the worst object not Ready
 * (`rollUp`'s rule): what a judge-only cold listing keeps per deployment, its objects let go page
 * by page. `health()` lists that worst object only; `rollUp` gives every object.
 */
export class HealthTally {
  #count = 0;
  #worst: ObjectHealth | undefined;

  add(o: ObjectHealth): void {
    this.#count += 1;
    if (o.state === 'Ready') return;
    const worst = this.#worst;
    const by = worst === undefined ? 1 : RANK[o.state] - RANK[worst.state];
    if (by > 0 || (by === 0 && worst !== undefined && o.id < worst.id)) this.#worst = o;
  }

  /** Objects added so far. */
  get count(): number {
    return this.#count;
  }

  health(): Health {
    const worst = this.#worst;
    if (this.#count === 0) return { state: 'Ready', reason: 'no objects', objects: [] };
    if (worst === undefined) return { state: 'Ready', reason: `${this.#count} objects ready`, objects: [] };
    const reason = `${worst.id}: ${worst.reason}`;
    if (worst.state === 'Failed') {
      return { state: 'Failed', reason, code: 'MOORING_E_ROLLOUT_FAILED', objects: [worst] };
    }
    return { state: 'Progressing', reason, objects: [worst] };
  }
}
