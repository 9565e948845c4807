/** Object metadata and label selectors, as apimachinery's ValidateObjectMeta and ValidateLabelSelector check them. */
import type { StatusCause } from '../status.ts';
import type { StoredObject } from '../types.ts';
import { forbidden, invalid, invalidEach, Raw, required, tooLong } from './field-errors.ts';
import { dns1035Label, dns1123Label, dns1123Subdomain, labelKey, labelValue } from './formats.ts';

export type Obj = Record<string, unknown>;

/** An object field as an object, `{}` for anything else (a null item decodes to an empty struct). */
export function asObj(item: unknown): Obj {
  return item !== null && typeof item === 'object' && !Array.isArray(item) ? (item as Obj) : {};
}

/** A list field's items as objects, `[]` when it is not a list. */
export function objList(value: unknown): Obj[] {
  return Array.isArray(value) ? value.map(asObj) : [];
}

/** The name rule of each kind: Services are DNS-1035 labels, Namespaces DNS-1123 labels, the rest subdomains. */
function nameRule(kind: string): (name: string) => string[] {
  if (kind === 'Service') return dns1035Label;
  if (kind === 'Namespace') return dns1123Label;
  return dns1123Subdomain;
}

/** metadata.name, then labels and annotations. */
export function metaCauses(o: StoredObject): StatusCause[] {
  const name = o.metadata.name;
  const out: StatusCause[] = [];
  if (!name) out.push(required('metadata.name', 'name or generateName is required'));
  else out.push(...invalidEach('metadata.name', name, nameRule(o.kind)(name)));
  out.push(...labelCauses(o.metadata.labels, 'metadata.labels'));
  out.push(...annotationCauses(o.metadata.annotations, 'metadata.annotations'));
  return out;
}

/** ValidateLabels: each key a qualified name, each value a label value; both reported on the map's path. */
export function labelCauses(labels: unknown, field: string): StatusCause[] {
  const out: StatusCause[] = [];
  for (const [key, value] of Object.entries(asObj(labels))) {
    out.push(...invalidEach(field, key, labelKey(key)));
    if (typeof value === 'string') out.push(...invalidEach(field, value, labelValue(value)));
  }
  return out;
}

const ANNOTATIONS_MAX = 256 * 1024;

/** ValidateAnnotations: keys are qualified names (checked lower-cased), 256 KiB in all. */
export function annotationCauses(annotations: unknown, field: string): StatusCause[] {
  const out: StatusCause[] = [];
  let size = 0;
  for (const [key, value] of Object.entries(asObj(annotations))) {
    out.push(...invalidEach(field, key, labelKey(key.toLowerCase())));
    size += Buffer.byteLength(key) + (typeof value === 'string' ? Buffer.byteLength(value) : 0);
  }
  if (size > ANNOTATIONS_MAX) out.push(tooLong(field, ANNOTATIONS_MAX));
  return out;
}

/** A LabelSelector as Go marshals the struct: matchLabels (keys sorted), then matchExpressions. */
export function selectorJson(selector: unknown): Raw {
  if (selector === undefined || selector === null) return new Raw('null');
  const s = asObj(selector);
  const parts: string[] = [];
  const labels = asObj(s.matchLabels);
  if (Object.keys(labels).length > 0) {
    const sorted = Object.keys(labels)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${JSON.stringify(labels[k])}`);
    parts.push(`"matchLabels":{${sorted.join(',')}}`);
  }
  const exprs = objList(s.matchExpressions);
  if (exprs.length > 0) {
    const items = exprs.map((e) => {
      const fields = [
        `"key":${JSON.stringify(e.key ?? '')}`,
        `"operator":${JSON.stringify(e.operator ?? '')}`,
      ];
      if (Array.isArray(e.values) && e.values.length > 0) fields.push(`"values":${JSON.stringify(e.values)}`);
      return `{${fields.join(',')}}`;
    });
    parts.push(`"matchExpressions":[${items.join(',')}]`);
  }
  return new Raw(`{${parts.join(',')}}`);
}

/** ValidateLabelSelector (label values in selectors strictly checked, as on create). */
export function selectorCauses(selector: unknown, field: string): StatusCause[] {
  if (selector === undefined || selector === null) return [];
  const s = asObj(selector);
  const out = labelCauses(s.matchLabels, `${field}.matchLabels`);
  objList(s.matchExpressions).forEach((e, i) => {
    const path = `${field}.matchExpressions[${i}]`;
    const values = Array.isArray(e.values) ? (e.values as unknown[]) : [];
    switch (e.operator) {
      case 'In':
      case 'NotIn':
        if (values.length === 0)
          out.push(required(`${path}.values`, "must be specified when `operator` is 'In' or 'NotIn'"));
        break;
      case 'Exists':
      case 'DoesNotExist':
        if (values.length > 0)
          out.push(
            forbidden(`${path}.values`, "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"),
          );
        break;
      default:
        out.push(invalid(`${path}.operator`, e.operator ?? '', 'not a valid selector operator'));
    }
    const key = typeof e.key === 'string' ? e.key : '';
    out.push(...invalidEach(`${path}.key`, key, labelKey(key)));
    values.forEach((v, j) => {
      if (typeof v === 'string') out.push(...invalidEach(`${path}.values[${j}]`, v, labelValue(v)));
    });
  });
  return out;
}

/** Whether `labels` satisfy `selector` (labels.Selector.Matches). */
export function selectorMatches(selector: Obj, labels: Record<string, string> | undefined): boolean {
  for (const [k, v] of Object.entries(asObj(selector.matchLabels))) if (labels?.[k] !== v) return false;
  for (const expr of objList(selector.matchExpressions)) {
    const key = String(expr.key);
    const has = labels !== undefined && Object.hasOwn(labels, key);
    const values = (Array.isArray(expr.values) ? expr.values : []) as string[];
    const value = labels?.[key] as string;
    if (expr.operator === 'In' && !(has && values.includes(value))) return false;
    if (expr.operator === 'NotIn' && has && values.includes(value)) return false;
    if (expr.operator === 'Exists' && !has) return false;
    if (expr.operator === 'DoesNotExist' && has) return false;
  }
  return true;
}

/** Whether a selector selects nothing in particular (no matchLabels, no matchExpressions). */
export function selectorEmpty(selector: unknown): boolean {
  const s = asObj(selector);
  return Object.keys(asObj(s.matchLabels)).length + objList(s.matchExpressions).length === 0;
}

/** ValidateNonnegativeField. */
export function nonNegative(value: unknown, field: string): StatusCause[] {
  return typeof value === 'number' && value < 0
    ? [invalid(field, value, 'must be greater than or equal to 0')]
    : [];
}
