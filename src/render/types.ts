import type { DeploymentRecord, ResourceSpecRecord } from '../contract/index.ts';
import { type LabelContext, type ObjectComponent, objectLabels, sortKeys } from './labels.ts';
import type { CustomDatastores } from './datastores.ts';
import type { ObjectNames } from './names.ts';
import type { PodParts } from './pod.ts';
import type { RenderSettings } from './settings.ts';
import type { KubeObject, ObjectMeta } from '../objects/kube-object.ts';

/** Metadata of a rendered object: always namespaced and labelled. */
export interface RenderedMeta extends ObjectMeta {
  name: string;
  namespace: string;
  labels: Record<string, string>;
}

/** A rendered Kubernetes object: plain data, ready to serialize or apply. */
export type RenderedObject = KubeObject<RenderedMeta>;

/** Everything the component renderers share, computed and checked once per render. */
export interface RenderContext {
  deployment: DeploymentRecord;
  spec: ResourceSpecRecord;
  settings: RenderSettings;
  namespace: string;
  names: ObjectNames;
  labels: LabelContext;
  revisionId: string;
  image: string;
  /** Status UNUSED: every workload at zero replicas, no autoscaler or disruption budget. */
  scaledToZero: boolean;
  pod: PodParts;
  /** Whether the bundled Redis / Postgres are rendered (no *_URI_CUSTOM secret). */
  bundledRedis: boolean;
  bundledPostgres: boolean;
  /** Where the URIs of the datastores the deployment brings itself are read from. */
  custom: CustomDatastores;
  /** Names of the deployment's secrets (never their values). */
  secretNames: ReadonlySet<string>;
}

/**
 * A deep copy of plain data (objects, arrays, primitives). Renderers share pieces between objects
 * (labels, pod parts); the result is copied once so that no two returned objects share a node and
 * a caller may change one without touching another.
 */
export function copyPlain<T>(value: T): T {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    const out = new Array(value.length);
    for (let i = 0; i < value.length; i++) out[i] = copyPlain(value[i]);
    return out as T;
  }
  const out: Record<string, unknown> = {};
  const record = value as Record<string, unknown>;
  // for-in with an own-member test: Object.keys' members in its order, without a list of them
  // made for each of the thousands of objects a cold start renders.
  for (const k in record) {
    if (!Object.hasOwn(record, k)) continue;
    const v = record[k];
    if (v !== undefined) out[k] = copyPlain(v);
  }
  return out as T;
}

/**
 * Metadata for an object of this deployment: its ownership labels, and `annotations` when there
 * are any. The revision annotation is not among them: only the workloads that run the revision's
 * image carry it (app.ts), so that a new revision rewrites only the objects it changes (ADR 0017).
 */
export function meta(
  ctx: RenderContext,
  name: string,
  component: ObjectComponent,
  annotations: Record<string, string> = {},
): RenderedMeta {
  const out: RenderedMeta = { name, namespace: ctx.namespace, labels: objectLabels(ctx.labels, component) };
  if (Object.keys(annotations).length > 0) out.annotations = sortKeys(annotations);
  return out;
}
