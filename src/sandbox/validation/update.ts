/**
 * Update rules of the API server: fields that may not change once set. Each returns the causes
 * of a 422 Invalid, in the server's words.
 */
import { jsonEqual } from '../equal.ts';
import type { StatusCause } from '../status.ts';
import type { StoredObject } from '../types.ts';
import { forbidden, invalid } from './field-errors.ts';
import { exceeds, quantityValue } from './quantity.ts';
import { selectorJson } from './meta.ts';

type Obj = Record<string, unknown>;

function spec(o: StoredObject): Obj {
  return (o.spec ?? {}) as Obj;
}

const STS_MUTABLE = [
  'replicas',
  'ordinals',
  'template',
  'updateStrategy',
  'revisionHistoryLimit',
  'persistentVolumeClaimRetentionPolicy',
  'minReadySeconds',
];

function without(o: Obj, keys: string[]): Obj {
  const out: Obj = {};
  for (const [k, v] of Object.entries(o)) if (!keys.includes(k)) out[k] = v;
  return out;
}

function selector(live: StoredObject, next: StoredObject): StatusCause[] {
  const a = spec(live).selector;
  const b = spec(next).selector;
  if (jsonEqual(a, b)) return [];
  return [invalid('spec.selector', selectorJson(b), 'field is immutable')];
}

/** A Secret's type may not change (ValidateSecretUpdate); an unset type is the default, Opaque. */
function secretType(live: StoredObject, next: StoredObject): StatusCause[] {
  const before = live.type ?? 'Opaque';
  const after = next.type ?? 'Opaque';
  return before === after ? [] : [invalid('type', after, 'field is immutable')];
}

function statefulSet(live: StoredObject, next: StoredObject): StatusCause[] {
  const out = selector(live, next);
  if (
    !jsonEqual(
      without(spec(live), [...STS_MUTABLE, 'selector']),
      without(spec(next), [...STS_MUTABLE, 'selector']),
    )
  ) {
    out.push({
      reason: 'FieldValueForbidden',
      message:
        "Forbidden: updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'revisionHistoryLimit', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden",
      field: 'spec',
    });
  }
  return out;
}

function service(live: StoredObject, next: StoredObject): StatusCause[] {
  const before = spec(live).clusterIP;
  const after = spec(next).clusterIP;
  if (before === undefined || before === '' || before === after) return [];
  if (spec(live).type === 'ExternalName' || spec(next).type === 'ExternalName') return [];
  return [
    {
      reason: 'FieldValueInvalid',
      message: `Invalid value: ${JSON.stringify([after ?? ''])}: may not change once set`,
      field: 'spec.clusterIPs[0]',
    },
  ];
}

function immutableData(live: StoredObject, next: StoredObject): StatusCause[] {
  if (live.immutable !== true) return [];
  const out: StatusCause[] = [];
  if (next.immutable !== true) {
    out.push({
      reason: 'FieldValueForbidden',
      message: 'Forbidden: field is immutable when `immutable` is set',
      field: 'immutable',
    });
  }
  for (const field of ['data', 'binaryData']) {
    if (!jsonEqual(live[field], next[field])) {
      out.push({
        reason: 'FieldValueForbidden',
        message: 'Forbidden: field is immutable when `immutable` is set',
        field,
      });
    }
  }
  return out;
}

function pvc(live: StoredObject, next: StoredObject): StatusCause[] {
  const strip = (o: StoredObject): Obj => {
    const s = { ...spec(o) };
    const resources = { ...((s.resources ?? {}) as Obj) };
    delete resources.requests;
    s.resources = resources;
    delete s.volumeAttributesClassName;
    delete s.volumeName; // bound by the control plane, not the user
    return s;
  };
  if (jsonEqual(strip(live), strip(next))) return shrink(live, next);
  return [
    {
      reason: 'FieldValueForbidden',
      message:
        'Forbidden: spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims',
      field: 'spec',
    },
  ];
}

/**
 * A bound claim's storage request may go down (to recover from a failed expansion) but never
 * below the capacity it has.
 */
function shrink(live: StoredObject, next: StoredObject): StatusCause[] {
  const status = (live.status ?? {}) as Obj;
  if (status.phase !== 'Bound') return [];
  const request = (spec(next).resources as Obj | undefined)?.requests as Obj | undefined;
  const wanted = quantityValue(request?.storage);
  const capacity = quantityValue((status.capacity as Obj | undefined)?.storage);
  if (!wanted || !capacity || !exceeds(capacity, wanted)) return [];
  return [forbidden('spec.resources.requests.storage', 'field can not be less than status.capacity')];
}

/** ValidateNoNewFinalizers: an object being deleted may lose finalizers, never gain one. */
function newFinalizers(live: StoredObject, next: StoredObject): StatusCause[] {
  if (!live.metadata.deletionTimestamp) return [];
  const had = new Set(live.metadata.finalizers ?? []);
  const extra = [...new Set((next.metadata.finalizers ?? []).filter((f) => !had.has(f)))].sort();
  if (extra.length === 0) return [];
  const found = `[${extra.map((f) => JSON.stringify(f)).join(' ')}]`;
  return [
    forbidden(
      'metadata.finalizers',
      `no new finalizers can be added if the object is being deleted, found new finalizers ${found}`,
    ),
  ];
}

/** Causes for changing a field the kind does not allow to change; empty when the update is allowed. */
export function immutableCauses(live: StoredObject, next: StoredObject): StatusCause[] {
  return [...newFinalizers(live, next), ...kindCauses(live, next)];
}

function kindCauses(live: StoredObject, next: StoredObject): StatusCause[] {
  switch (next.kind) {
    case 'Deployment':
      return selector(live, next);
    case 'StatefulSet':
      return statefulSet(live, next);
    case 'Service':
      return service(live, next);
    case 'Secret':
      return [...secretType(live, next), ...immutableData(live, next)];
    case 'ConfigMap':
      return immutableData(live, next);
    case 'PersistentVolumeClaim':
      return pvc(live, next);
    default:
      return [];
  }
}
