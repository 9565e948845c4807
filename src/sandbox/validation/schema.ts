/**
 * The OpenAPI schema check: the official schemas (kubernetes-models, generated from the Kubernetes
 * OpenAPI document) compiled to validators, their failures as causes.
 */
import { Deployment, ReplicaSet, StatefulSet } from 'kubernetes-models/apps/v1';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2';
import { Lease } from 'kubernetes-models/coordination.k8s.io/v1';
import { NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1';
import { Role, RoleBinding } from 'kubernetes-models/rbac.authorization.k8s.io/v1';
import {
  ConfigMap,
  Event,
  Namespace,
  PersistentVolumeClaim,
  Pod,
  Secret,
  Service,
  ServiceAccount,
} from 'kubernetes-models/v1';
import { validate as validateDeployment } from 'kubernetes-models/_schemas/IoK8sApiAppsV1Deployment';
import { validate as validateReplicaSet } from 'kubernetes-models/_schemas/IoK8sApiAppsV1ReplicaSet';
import { validate as validateStatefulSet } from 'kubernetes-models/_schemas/IoK8sApiAppsV1StatefulSet';
import { validate as validateHpa } from 'kubernetes-models/_schemas/IoK8sApiAutoscalingV2HorizontalPodAutoscaler';
import { validate as validateLease } from 'kubernetes-models/_schemas/IoK8sApiCoordinationV1Lease';
import { validate as validateConfigMap } from 'kubernetes-models/_schemas/IoK8sApiCoreV1ConfigMap';
import { validate as validateEvent } from 'kubernetes-models/_schemas/IoK8sApiCoreV1Event';
import { validate as validateNamespace } from 'kubernetes-models/_schemas/IoK8sApiCoreV1Namespace';
import { validate as validatePvc } from 'kubernetes-models/_schemas/IoK8sApiCoreV1PersistentVolumeClaim';
import { validate as validatePod } from 'kubernetes-models/_schemas/IoK8sApiCoreV1Pod';
import { validate as validateSecret } from 'kubernetes-models/_schemas/IoK8sApiCoreV1Secret';
import { validate as validateService } from 'kubernetes-models/_schemas/IoK8sApiCoreV1Service';
import { validate as validateServiceAccount } from 'kubernetes-models/_schemas/IoK8sApiCoreV1ServiceAccount';
import { validate as validateNetworkPolicy } from 'kubernetes-models/_schemas/IoK8sApiNetworkingV1NetworkPolicy';
import { validate as validatePdb } from 'kubernetes-models/_schemas/IoK8sApiPolicyV1PodDisruptionBudget';
import { validate as validateRole } from 'kubernetes-models/_schemas/IoK8sApiRbacV1Role';
import { validate as validateRoleBinding } from 'kubernetes-models/_schemas/IoK8sApiRbacV1RoleBinding';
import type { StatusCause } from '../status.ts';
import type { StoredObject } from '../types.ts';

type Validatable = new (data: never) => { validate(): void };

const MODELS: Record<string, Validatable> = {
  Namespace,
  Secret,
  ConfigMap,
  Service,
  ServiceAccount,
  PersistentVolumeClaim,
  Event,
  Deployment,
  ReplicaSet,
  Pod,
  StatefulSet,
  HorizontalPodAutoscaler,
  PodDisruptionBudget,
  NetworkPolicy,
  Lease,
  Role,
  RoleBinding,
} as unknown as Record<string, Validatable>;

/**
 * The models' compiled schema validators, called on the object as it is. Building a model first
 * copies the whole object (dropping undefined values); a valid object needs no copy, so the model
 * is built only to report why an object is invalid, exactly as before.
 */
const VALIDATORS: Record<string, (data: unknown) => boolean> = {
  Namespace: validateNamespace,
  Secret: validateSecret,
  ConfigMap: validateConfigMap,
  Service: validateService,
  ServiceAccount: validateServiceAccount,
  PersistentVolumeClaim: validatePvc,
  Event: validateEvent,
  Deployment: validateDeployment,
  ReplicaSet: validateReplicaSet,
  Pod: validatePod,
  StatefulSet: validateStatefulSet,
  HorizontalPodAutoscaler: validateHpa,
  PodDisruptionBudget: validatePdb,
  NetworkPolicy: validateNetworkPolicy,
  Lease: validateLease,
  Role: validateRole,
  RoleBinding: validateRoleBinding,
};

interface AjvError {
  instancePath: string;
  keyword: string;
  params: Record<string, unknown>;
  message?: string;
}

/** `/spec/template/spec/containers/0` -> `spec.template.spec.containers[0]`. */
export function fieldPath(pointer: string): string {
  let out = '';
  for (const part of pointer.split('/').slice(1)) {
    const key = part.replace(/~1/g, '/').replace(/~0/g, '~');
    out += /^\d+$/.test(key) ? `[${key}]` : out === '' ? key : `.${key}`;
  }
  return out;
}

/**
 * The schema's complaints about `o`, empty when it conforms (or its kind has no model); `enum`
 * marks a value outside the schema's enum list.
 */
export function schemaCauses(o: StoredObject): (StatusCause & { enum?: true })[] {
  const model = MODELS[o.kind];
  if (!model) return [];
  // An undefined value fails a type check the model's copy would not see, never the reverse.
  if (VALIDATORS[o.kind]?.(o)) return [];
  try {
    new model(o as never).validate();
    return [];
  } catch (error) {
    const errors = (error as { errors?: AjvError[] }).errors ?? [];
    return errors.map((e) => {
      const base = fieldPath(e.instancePath);
      if (e.keyword === 'required') {
        const field =
          base === '' ? String(e.params.missingProperty) : `${base}.${String(e.params.missingProperty)}`;
        return { reason: 'FieldValueRequired', message: 'Required value', field };
      }
      return {
        reason: 'FieldValueInvalid',
        message: `Invalid value: ${e.message ?? e.keyword}`,
        field: base,
        ...(e.keyword === 'enum' ? { enum: true as const } : {}),
      };
    });
  }
}
