/**
 * Validation of a stored object before it is written: the official schemas (kubernetes-models,
 * generated from the Kubernetes OpenAPI document) plus the semantic checks of the API server's
 * validation that mooring's manifests can trip (names, selectors, containers, ports).
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
import type { StatusCause } from './status.ts';
import type { StoredObject } from './types.ts';

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

function schemaCauses(o: StoredObject): StatusCause[] {
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
      };
    });
  }
}

const SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const LABEL_1123 = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const LABEL_1035 = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

function nameCauses(o: StoredObject): StatusCause[] {
  const name = o.metadata.name;
  if (!name)
    return [
      {
        reason: 'FieldValueRequired',
        message: 'Required value: name or generateName is required',
        field: 'metadata.name',
      },
    ];
  if (o.kind === 'Service') {
    if (name.length > 63 || !LABEL_1035.test(name)) {
      return [
        {
          reason: 'FieldValueInvalid',
          message: `Invalid value: "${name}": a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')`,
          field: 'metadata.name',
        },
      ];
    }
  } else if (o.kind === 'Namespace') {
    if (name.length > 63 || !LABEL_1123.test(name)) {
      return [
        {
          reason: 'FieldValueInvalid',
          message: `Invalid value: "${name}": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`,
          field: 'metadata.name',
        },
      ];
    }
  } else if (name.length > 253 || !SUBDOMAIN.test(name)) {
    return [
      {
        reason: 'FieldValueInvalid',
        message: `Invalid value: "${name}": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
        field: 'metadata.name',
      },
    ];
  }
  return [];
}

function labelCauses(labels: unknown, field: string): StatusCause[] {
  if (!labels || typeof labels !== 'object') return [];
  const out: StatusCause[] = [];
  for (const [key, value] of Object.entries(labels as Record<string, unknown>)) {
    if (typeof value === 'string' && (value.length > 63 || !LABEL_VALUE.test(value))) {
      out.push({
        reason: 'FieldValueInvalid',
        message: `Invalid value: "${value}": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')`,
        field: `${field}`,
      });
      void key;
    }
  }
  return out;
}

type Obj = Record<string, unknown>;

function selectorMatches(selector: Obj | undefined, labels: Record<string, string> | undefined): boolean {
  const matchLabels = (selector?.matchLabels ?? {}) as Record<string, string>;
  for (const [k, v] of Object.entries(matchLabels)) if (labels?.[k] !== v) return false;
  for (const expr of (selector?.matchExpressions ?? []) as {
    key: string;
    operator: string;
    values?: string[];
  }[]) {
    const has = labels !== undefined && Object.hasOwn(labels, expr.key);
    const value = labels?.[expr.key];
    if (expr.operator === 'In' && !(has && expr.values?.includes(value as string))) return false;
    if (expr.operator === 'NotIn' && has && expr.values?.includes(value as string)) return false;
    if (expr.operator === 'Exists' && !has) return false;
    if (expr.operator === 'DoesNotExist' && has) return false;
  }
  return true;
}

function workloadCauses(o: StoredObject): StatusCause[] {
  const spec = (o.spec ?? {}) as Obj;
  const template = (spec.template ?? {}) as Obj;
  const labels = (template.metadata as Obj | undefined)?.labels as Record<string, string> | undefined;
  const out: StatusCause[] = [];
  const selector = spec.selector as Obj | undefined;
  if (selector && Object.keys(selector).length > 0 && !selectorMatches(selector, labels)) {
    out.push({
      reason: 'FieldValueInvalid',
      message: `Invalid value: ${JSON.stringify(labels ?? {})}: \`selector\` does not match template \`labels\``,
      field: 'spec.template.metadata.labels',
    });
  }
  if (selector && Object.keys(selector).length === 0) {
    out.push({
      reason: 'FieldValueInvalid',
      message: 'Invalid value: "{}": empty selector is invalid for deployment',
      field: 'spec.selector',
    });
  }
  const podSpec = (template.spec ?? {}) as Obj;
  // A null item decodes to an empty container on a real server: validate it as one, never crash.
  const containers = Array.isArray(podSpec.containers) ? (podSpec.containers as unknown[]).map(asObj) : [];
  if (template.spec !== undefined && containers.length === 0) {
    out.push({
      reason: 'FieldValueRequired',
      message: 'Required value',
      field: 'spec.template.spec.containers',
    });
  }
  const seen = new Set<string>();
  containers.forEach((c, i) => {
    if (!c.image)
      out.push({
        reason: 'FieldValueRequired',
        message: 'Required value',
        field: `spec.template.spec.containers[${i}].image`,
      });
    if (typeof c.name === 'string') {
      if (seen.has(c.name))
        out.push({
          reason: 'FieldValueDuplicate',
          message: `Duplicate value: "${c.name}"`,
          field: `spec.template.spec.containers[${i}].name`,
        });
      seen.add(c.name);
    }
  });
  if (typeof spec.replicas === 'number' && spec.replicas < 0) {
    out.push({
      reason: 'FieldValueInvalid',
      message: `Invalid value: ${spec.replicas}: must be greater than or equal to 0`,
      field: 'spec.replicas',
    });
  }
  return out;
}

function serviceCauses(o: StoredObject): StatusCause[] {
  const spec = (o.spec ?? {}) as Obj;
  const ports = Array.isArray(spec.ports) ? (spec.ports as unknown[]).map(asObj) : [];
  const headless = spec.clusterIP === 'None';
  if (ports.length === 0 && !headless && spec.type !== 'ExternalName') {
    return [{ reason: 'FieldValueRequired', message: 'Required value', field: 'spec.ports' }];
  }
  const out: StatusCause[] = [];
  if (ports.length > 1) {
    ports.forEach((p, i) => {
      if (!p.name)
        out.push({ reason: 'FieldValueRequired', message: 'Required value', field: `spec.ports[${i}].name` });
    });
  }
  return out;
}

function asObj(item: unknown): Obj {
  return item !== null && typeof item === 'object' && !Array.isArray(item) ? (item as Obj) : {};
}

/** The causes that make `o` invalid, empty when it is valid. */
export function validateObject(o: StoredObject): StatusCause[] {
  const causes = [...nameCauses(o), ...labelCauses(o.metadata.labels, 'metadata.labels'), ...schemaCauses(o)];
  if (o.kind === 'Deployment' || o.kind === 'StatefulSet') causes.push(...workloadCauses(o));
  if (o.kind === 'Service') causes.push(...serviceCauses(o));
  return causes;
}
