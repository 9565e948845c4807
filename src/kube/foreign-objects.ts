/**
 * What a deployment may meet in its namespace beyond this listener's objects, listed once per
 * namespace per poll cycle (`reset` at each cycle) and only when a rendered deployment needs it:
 *
 * - the pod selectors of the Services and NetworkPolicies mooring does not manage (selector
 *   `app.kubernetes.io/managed-by!=mooring`: mooring's own select by labels records cannot set):
 *   what a record's labels must not match (reconcile/impostor.ts); kept as ids and selectors;
 * - the claims mooring labelled for another listener (a kept Postgres claim of another agent's
 *   deployment), which a deployment may not mount or adopt (reconcile/identity.ts); kept as
 *   names and labels.
 */
import { LABELS, MANAGED_BY } from '../labels.ts';
import type { KubeObject } from '../objects/kube-object.ts';
import { formatObjectId, objectId } from '../objects/object-id.ts';
import { kubeError } from './errors.ts';
import type { ObjectClient } from './object-client.ts';

/** A label selector as Kubernetes writes one. */
export interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: { key: string; operator: string; values?: string[] }[];
}

/** One object that selects pods: its id and each selector by which it does. */
export interface Selecting {
  id: string;
  /** What matching means, for messages: "selects" (a Service's backends) or "admits" (a policy peer). */
  selectors: { selector: LabelSelector; role: string }[];
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);

/** The selectors by which a Service or NetworkPolicy reaches pods (a policy's peers in both directions). */
export function selectorsOf(o: KubeObject): Selecting['selectors'] {
  const spec = (o as { spec?: unknown }).spec;
  if (!isObj(spec)) return [];
  if (o.kind === 'Service') {
    return isObj(spec.selector)
      ? [
          {
            selector: { matchLabels: spec.selector as Record<string, string> },
            role: 'selects as its backends',
          },
        ]
      : [];
  }
  const out: Selecting['selectors'] = [];
  for (const [rules, peers] of [
    ['ingress', 'from'],
    ['egress', 'to'],
  ] as const) {
    for (const rule of Array.isArray(spec[rules]) ? spec[rules] : []) {
      for (const peer of isObj(rule) && Array.isArray(rule[peers]) ? rule[peers] : []) {
        if (isObj(peer) && isObj(peer.podSelector))
          out.push({ selector: peer.podSelector as LabelSelector, role: `allows in its ${rules} rules` });
      }
    }
  }
  return out;
}

/** Whether `selector` matches `labels` (an empty selector matches every pod). */
export function selectorMatches(selector: LabelSelector, labels: Readonly<Record<string, string>>): boolean {
  for (const [k, v] of Object.entries(selector.matchLabels ?? {})) if (labels[k] !== v) return false;
  for (const e of selector.matchExpressions ?? []) {
    const has = Object.hasOwn(labels, e.key);
    const value = labels[e.key];
    const inValues = has && (e.values ?? []).includes(value as string);
    const ok =
      e.operator === 'In'
        ? inValues
        : e.operator === 'NotIn'
          ? !inValues
          : e.operator === 'Exists'
            ? has
            : e.operator === 'DoesNotExist'
              ? !has
              : false;
    if (!ok) return false;
  }
  return true;
}

/** Per namespace, for one poll cycle: what the agent's own listing (this listener's objects) does not hold. */
export class ForeignObjects {
  readonly #client: Pick<ObjectClient, 'list'>;
  readonly #listenerId: string;
  #selectors = new Map<string, Promise<Selecting[]>>();
  #claims = new Map<string, Promise<Map<string, KubeObject>>>();

  constructor(client: Pick<ObjectClient, 'list'>, listenerId: string) {
    this.#client = client;
    this.#listenerId = listenerId;
  }

  /** Forgets what was listed: the next cycle lists again (an object made since is then seen). */
  reset(): void {
    this.#selectors = new Map();
    this.#claims = new Map();
  }

  /** The namespace's Services and NetworkPolicies mooring does not manage, by their selectors. */
  selectors(namespace: string): Promise<Selecting[]> {
    return once(this.#selectors, namespace, () => this.#listSelectors(namespace));
  }

  /**
   * The namespace's claims labelled by mooring for another listener, by name, as their ownership
   * labels: a kept Postgres claim of another agent's deployment is not in this agent's listing.
   */
  claims(namespace: string): Promise<ReadonlyMap<string, KubeObject>> {
    return once(this.#claims, namespace, async () => {
      const selector = `${LABELS.managedBy}=${MANAGED_BY},${LABELS.listenerId}!=${this.#listenerId}`;
      const out = new Map<string, KubeObject>();
      await coded('PersistentVolumeClaim', namespace, () =>
        this.#client.list('v1', 'PersistentVolumeClaim', namespace, selector, (item) => {
          const metadata = {
            name: item.metadata.name,
            namespace,
            labels: { ...(item.metadata.labels ?? {}) },
          };
          const slim: KubeObject = { apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata };
          out.set(item.metadata.name ?? '', slim);
          return slim;
        }),
      );
      return out;
    });
  }

  async #listSelectors(namespace: string): Promise<Selecting[]> {
    const selector = `${LABELS.managedBy}!=${MANAGED_BY}`;
    const kinds = [
      ['v1', 'Service'],
      ['networking.k8s.io/v1', 'NetworkPolicy'],
    ] as const;
    const out: Selecting[] = [];
    for (const [apiVersion, kind] of kinds) {
      await coded(kind, namespace, () =>
        this.#client.list(apiVersion, kind, namespace, selector, (item) => {
          const selectors = selectorsOf(item);
          if (selectors.length > 0) out.push({ id: objectId(item), selectors });
          // Nothing of the item is kept but its id and selectors.
          return { apiVersion, kind, metadata: {} } as KubeObject;
        }),
      );
    }
    return out;
  }
}

/**
 * A failed list as the coded error of its cause (a server error, unreachable, forbidden), so the
 * reconcile that needed it reports that and not an unexpected one.
 */
async function coded<T>(kind: string, namespace: string, list: () => Promise<T>): Promise<T> {
  try {
    return await list();
  } catch (err) {
    throw kubeError(err, formatObjectId(kind, namespace, '*'), 'list');
  }
}

/** `map`'s entry for `key`, made by `make` once; a failed one is forgotten (tried again next time). */
function once<T>(map: Map<string, Promise<T>>, key: string, make: () => Promise<T>): Promise<T> {
  let p = map.get(key);
  if (!p) {
    p = make();
    p.catch(() => map.delete(key));
    map.set(key, p);
  }
  return p;
}
