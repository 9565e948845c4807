/**
 * The pod selectors of the Services and NetworkPolicies mooring does not manage, per namespace:
 * what a record's labels must not match (reconcile/impostor.ts). Listed only when a deployment with
 * labels of its own is rendered, once per namespace per poll cycle (`reset` at each cycle), with
 * the selector `app.kubernetes.io/managed-by!=mooring`: mooring's own Services and policies select
 * by labels records cannot set, so they are not listed. Kept per object: its id and selectors only.
 */
import { LABELS, MANAGED_BY } from '../labels.ts';
import type { KubeObject } from '../objects/kube-object.ts';
import { objectId } from '../objects/object-id.ts';
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

/** Per namespace, for one poll cycle: the selectors of Services and NetworkPolicies mooring does not manage. */
export class ForeignSelectors {
  readonly #client: Pick<ObjectClient, 'list'>;
  #byNamespace = new Map<string, Promise<Selecting[]>>();

  constructor(client: Pick<ObjectClient, 'list'>) {
    this.#client = client;
  }

  /** Forgets what was listed: the next cycle lists again (a Service made since is then seen). */
  reset(): void {
    this.#byNamespace = new Map();
  }

  /** The namespace's selecting objects, listed at most once per cycle; a failed listing is not kept. */
  of(namespace: string): Promise<Selecting[]> {
    let listed = this.#byNamespace.get(namespace);
    if (!listed) {
      const map = this.#byNamespace;
      listed = this.#list(namespace);
      listed.catch(() => map.delete(namespace));
      map.set(namespace, listed);
    }
    return listed;
  }

  async #list(namespace: string): Promise<Selecting[]> {
    const selector = `${LABELS.managedBy}!=${MANAGED_BY}`;
    const kinds = [
      ['v1', 'Service'],
      ['networking.k8s.io/v1', 'NetworkPolicy'],
    ] as const;
    const out: Selecting[] = [];
    for (const [apiVersion, kind] of kinds) {
      await this.#client.list(apiVersion, kind, namespace, selector, (item) => {
        const selectors = selectorsOf(item);
        if (selectors.length > 0) out.push({ id: objectId(item), selectors });
        // Nothing of the item is kept but its id and selectors.
        return { apiVersion, kind, metadata: {} } as KubeObject;
      });
    }
    return out;
  }
}
