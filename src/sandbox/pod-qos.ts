/**
 * The QoS class kube-apiserver records in `status.qosClass` when a Pod is created (the rules of
 * pkg/apis/core/helper/qos): only cpu and memory count, and a zero quantity counts as unset.
 */

import { quantityValue } from './validation/quantity.ts';

type Obj = Record<string, unknown>;

const COMPUTE = ['cpu', 'memory'];

/** The non-zero cpu/memory entries of a resource list (quantities are canonical by now). */
function compute(list: unknown): Map<string, string> {
  const out = new Map<string, string>();
  if (!list || typeof list !== 'object') return out;
  for (const name of COMPUTE) {
    const value = (list as Obj)[name];
    if (typeof value !== 'string' && typeof value !== 'number') continue;
    // Zero by value, through the one quantity parser ("0", "0m", "0.0Gi"); what it cannot read counts.
    if (quantityValue(value)?.mantissa !== 0n) out.set(name, String(value));
  }
  return out;
}

function resourceSets(spec: Obj): Obj[] {
  // Pod-level resources, when set, decide alone; otherwise every container and init container.
  if (spec.resources && typeof spec.resources === 'object') return [spec.resources as Obj];
  const containers = [spec.containers, spec.initContainers].flatMap((l) => (Array.isArray(l) ? l : []));
  return containers.map((c) => ((c as Obj)?.resources ?? {}) as Obj);
}

/** Guaranteed, Burstable or BestEffort for a Pod spec. */
export function podQosClass(spec: Obj): string {
  let any = false;
  let guaranteed = true;
  for (const resources of resourceSets(spec)) {
    const limits = compute(resources.limits);
    // The API server defaults a missing request to its limit before the class is computed.
    const requests = new Map([...limits, ...compute(resources.requests)]);
    if (limits.size > 0 || requests.size > 0) any = true;
    for (const name of COMPUTE)
      if (!limits.has(name) || requests.get(name) !== limits.get(name)) guaranteed = false;
  }
  if (!any) return 'BestEffort';
  return guaranteed ? 'Guaranteed' : 'Burstable';
}
