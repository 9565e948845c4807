/**
 * Validation of an object before it is written, as kube-apiserver does it: the OpenAPI schema,
 * then the kind's own checks (pkg/apis/<group>/validation), then on update the fields that may
 * not change. Each cause is a field error in the server's words (see field-errors.ts).
 */
import type { StatusCause } from '../status.ts';
import type { StoredObject } from '../types.ts';
import { deploymentCauses, replicaSetCauses, statefulSetCauses } from './apps.ts';
import { configMapCauses, secretCauses, serviceCauses } from './core.ts';
import { dedupe } from './field-errors.ts';
import { metaCauses } from './meta.ts';
import { hpaCauses, ingressCauses, networkPolicyCauses, pdbCauses } from './other.ts';
import { podSpecCauses } from './pod.ts';
import { schemaCauses } from './schema.ts';
import { immutableCauses } from './update.ts';

const KIND_CHECKS: Record<string, (o: StoredObject) => StatusCause[]> = {
  Deployment: deploymentCauses,
  ReplicaSet: replicaSetCauses,
  StatefulSet: statefulSetCauses,
  Service: serviceCauses,
  Secret: secretCauses,
  ConfigMap: configMapCauses,
  Pod: (o) => podSpecCauses((o.spec ?? {}) as Record<string, unknown>, 'spec'),
  PodDisruptionBudget: pdbCauses,
  HorizontalPodAutoscaler: hpaCauses,
  NetworkPolicy: networkPolicyCauses,
  Ingress: ingressCauses,
};

/** The causes that make `o` invalid, empty when it is valid. */
export function validateObject(o: StoredObject): StatusCause[] {
  const own = KIND_CHECKS[o.kind]?.(o) ?? [];
  // The server checks built-in kinds in Go, not against their OpenAPI enums: a value the kind's
  // check already refuses (`spec.type: Unsupported value: …`) is reported in its words only.
  const checked = new Set(own.map((c) => c.field));
  const schema = schemaCauses(o).filter((c) => !(c.enum && checked.has(c.field)));
  const causes = [...metaCauses(o), ...schema.map(({ enum: _, ...c }) => c), ...own];
  return dedupe(causes);
}

/**
 * Every cause of a write: on update a Secret or ConfigMap reports its immutable fields first
 * (ValidateSecretUpdate runs them before ValidateSecret), other kinds after the object's own.
 */
export function validateWrite(next: StoredObject, live: StoredObject | undefined): StatusCause[] {
  const own = validateObject(next);
  if (!live) return own;
  const update = immutableCauses(live, next);
  if (next.kind === 'Secret' || next.kind === 'ConfigMap') return dedupe([...update, ...own]);
  return dedupe([...own, ...update]);
}
