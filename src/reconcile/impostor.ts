/**
 * A record's labels may not make its pods match a selector of a workload that is not the same
 * deployment's: a Service of another workload would route to them, a NetworkPolicy of another
 * workload would let them through (issue 39, finding 5). Mooring's own selectors use only its own
 * label keys, which records cannot set (render/labels.ts); the Services and NetworkPolicies
 * mooring does not manage in the namespace are listed (kube/foreign-objects.ts) and any whose
 * selector matches a pod's labels, but not those labels without the record's, refuses the
 * deployment (MOORING_E_LABELS_FOREIGN_SELECTOR). A selector matching without the record's labels
 * (an empty one, one by mooring's keys) is not the record's doing and is left alone.
 */
import { TerminalError } from '../errors.ts';
import type { Selecting } from '../kube/foreign-objects.ts';
import { selectorMatches } from '../kube/foreign-objects.ts';
import { LABELS } from '../labels.ts';
import type { KubeObject } from '../objects/kube-object.ts';
import { isObj } from '../render/plain-object.ts';

const MOORING_KEYS: ReadonlySet<string> = new Set(Object.values(LABELS));

/** The labels of each pod template of `objects` that carries labels of the record's own (keys not mooring's). */
export function recordLabelledPods(
  objects: readonly KubeObject[],
): { id: string; labels: Record<string, string> }[] {
  const out: { id: string; labels: Record<string, string> }[] = [];
  for (const o of objects) {
    const spec = (o as { spec?: unknown }).spec;
    const template = isObj(spec) ? spec.template : undefined;
    const metadata = isObj(template) ? template.metadata : undefined;
    const labels =
      isObj(metadata) && isObj(metadata.labels) ? (metadata.labels as Record<string, string>) : {};
    if (Object.keys(labels).some((k) => !MOORING_KEYS.has(k)))
      out.push({ id: `${o.kind}/${o.metadata.name}`, labels });
  }
  return out;
}

/** Refuses when a record's labels make one of `pods` match a selector of `foreign`. */
export function checkImpostorLabels(
  pods: readonly { id: string; labels: Record<string, string> }[],
  foreign: readonly Selecting[],
  deploymentId: string,
): void {
  for (const pod of pods) {
    const own = Object.fromEntries(Object.entries(pod.labels).filter(([k]) => MOORING_KEYS.has(k)));
    for (const f of foreign) {
      for (const { selector, role } of f.selectors) {
        if (!selectorMatches(selector, pod.labels) || selectorMatches(selector, own)) continue;
        throw new TerminalError(
          'MOORING_E_LABELS_FOREIGN_SELECTOR',
          `${pod.id}: the record's labels make its pods match ${f.id}, which ${role} pods so labelled and is not this deployment's; nothing of deployment ${deploymentId} written (choose other labels)`,
          { details: { pod: pod.id, object: f.id, selector } },
        );
      }
    }
  }
}
