import { invalidSpec, RenderError } from './errors.ts';
import type { Component } from './settings.ts';
import { LABELS, MANAGED_BY } from '../labels.ts';
import { sortedKeys } from '../objects/canonical-json.ts';
import { isDnsSubdomain } from '../objects/dns-names.ts';

// The users' labels and annotations may not use mooring's own keys (`../labels.ts`), nor anything under mooring.dev/.
const RESERVED_PREFIX = 'mooring.dev/';
const RESERVED_LABELS: ReadonlySet<string> = new Set(Object.values(LABELS));

/** The value of `app.kubernetes.io/component` for objects that are not a workload. */
export type ObjectComponent = Component | 'env' | 'network' | 'exposure';

/** What every object of one deployment shares. */
export interface LabelContext {
  listenerId: string;
  deploymentId: string;
  baseName: string;
  /** The ResourceSpec's labels, already checked. */
  userLabels: Record<string, string>;
  /** Labels already built, by component (the result is copied once before it is returned). */
  cache?: Map<ObjectComponent, Record<string, string>>;
}

/** The selector of a component's pods: only labels the user cannot change. */
export function selectorLabels(ctx: LabelContext, component: Component): Record<string, string> {
  return { [LABELS.component]: component, [LABELS.deploymentId]: ctx.deploymentId };
}

/** The labels of an object or pod template: the user's, then mooring's (sorted by key). */
export function objectLabels(ctx: LabelContext, component: ObjectComponent): Record<string, string> {
  ctx.cache ??= new Map();
  let labels = ctx.cache.get(component);
  if (labels) return labels;
  labels = sortKeys({ ...ctx.userLabels, ...stableLabels(ctx, component) });
  ctx.cache.set(component, labels);
  return labels;
}

/**
 * Labels without the user's: for fields Kubernetes never lets change (a StatefulSet's
 * volumeClaimTemplates), so that editing `labels` cannot make the StatefulSet unappliable.
 */
export function stableLabels(ctx: LabelContext, component: ObjectComponent): Record<string, string> {
  return sortKeys({
    [LABELS.managedBy]: MANAGED_BY,
    [LABELS.listenerId]: ctx.listenerId,
    [LABELS.deploymentId]: ctx.deploymentId,
    [LABELS.component]: component,
    [LABELS.name]: ctx.baseName,
    [LABELS.instance]: ctx.deploymentId,
  });
}

/** A copy with keys in code-point order: output never depends on input key order. */
export function sortKeys<T>(o: Record<string, T>): Record<string, T> {
  const out: Record<string, T> = {};
  for (const k of sortedKeys(o)) out[k] = o[k] as T;
  return out;
}

const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;
const NAME_PART = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;

/** A Kubernetes label value (also used for ids that become label values). */
export function isLabelValue(v: string): boolean {
  return v.length <= 63 && LABEL_VALUE.test(v);
}

/** A qualified name (`prefix/name` or `name`), the form of label and annotation keys. */
export function isQualifiedName(k: string): boolean {
  const slash = k.lastIndexOf('/');
  const name = slash < 0 ? k : k.slice(slash + 1);
  const prefix = slash < 0 ? undefined : k.slice(0, slash);
  if (name.length === 0 || name.length > 63 || !NAME_PART.test(name)) return false;
  return prefix === undefined || isDnsSubdomain(prefix);
}

/** Checks the ResourceSpec's labels: valid, and none of mooring's own. */
export function checkUserLabels(labels: Record<string, string> | null | undefined): Record<string, string> {
  if (!labels) return {};
  for (const [k, v] of Object.entries(labels)) {
    const field = `labels[${JSON.stringify(k)}]`;
    if (!isQualifiedName(k))
      throw invalidSpec(field, `label key ${JSON.stringify(k)} is not a valid label key`);
    if (RESERVED_LABELS.has(k) || k.startsWith(RESERVED_PREFIX)) {
      throw invalidSpec(field, `label ${JSON.stringify(k)} is set by mooring and may not be given`);
    }
    if (typeof v !== 'string' || !isLabelValue(v)) {
      throw invalidSpec(field, `label ${JSON.stringify(k)} has a value that is not a valid label value`);
    }
  }
  return labels;
}

/** Checks the ResourceSpec's annotations: valid keys, none under mooring.dev/. */
export function checkUserAnnotations(
  annotations: Record<string, string> | null | undefined,
): Record<string, string> {
  if (!annotations) return {};
  for (const [k, v] of Object.entries(annotations)) {
    const field = `annotations[${JSON.stringify(k)}]`;
    if (!isQualifiedName(k)) {
      throw invalidSpec(field, `annotation key ${JSON.stringify(k)} is not a valid annotation key`);
    }
    if (k.startsWith(RESERVED_PREFIX)) {
      throw invalidSpec(field, `annotation ${JSON.stringify(k)} is set by mooring and may not be given`);
    }
    if (typeof v !== 'string') throw invalidSpec(field, `annotation ${JSON.stringify(k)} must be a string`);
  }
  return annotations;
}

/** Checks an id that becomes a label value. */
export function checkLabelValue(field: string, what: string, v: string): string {
  if (!isLabelValue(v) || v === '') {
    throw new RenderError('MOORING_E_RENDER_INVALID', field, `${what} is not a valid label value`);
  }
  return v;
}
