/** apps/v1 Deployment, ReplicaSet and StatefulSet specs, as apps validation checks them. */
import type { StatusCause } from '../status.ts';
import type { StoredObject } from '../types.ts';
import { forbidden, invalid, notSupported, required } from './field-errors.ts';
import { percent } from './formats.ts';
import {
  asObj,
  nonNegative,
  type Obj,
  objList,
  selectorCauses,
  selectorEmpty,
  selectorJson,
  selectorMatches,
} from './meta.ts';
import { podTemplateCauses, restartAlwaysCauses } from './pod.ts';

/** ValidatePositiveIntOrPercent: a non-negative integer or a `N%` string. */
export function intOrPercentCauses(value: unknown, field: string): StatusCause[] {
  if (typeof value === 'string')
    return percent(value).length > 0 ? [invalid(field, value, percent(value)[0] as string)] : [];
  return nonNegative(value, field);
}

/** getIntOrPercentValue: `25%` -> 25, `7` -> 7, a non-numeric string -> 0. */
function intOrPercentValue(value: unknown): number {
  if (typeof value === 'number') return value;
  if (typeof value !== 'string') return 0;
  const n = Number.parseInt(value.endsWith('%') ? value.slice(0, -1) : value, 10);
  return Number.isNaN(n) ? 0 : n;
}

function notOver100(value: unknown, field: string): StatusCause[] {
  if (typeof value !== 'string' || percent(value).length > 0) return [];
  return intOrPercentValue(value) > 100 ? [invalid(field, value, 'must not be greater than 100%')] : [];
}

/** The selector, its match with the template labels, the template, and restartPolicy Always. */
function selectorAndTemplate(spec: Obj, what: string): StatusCause[] {
  const out: StatusCause[] = [];
  const selector = spec.selector;
  const template = asObj(spec.template);
  let selectorValid = true;
  if (selector === undefined || selector === null) out.push(required('spec.selector'));
  else {
    const causes = selectorCauses(selector, 'spec.selector');
    out.push(...causes);
    selectorValid = causes.length === 0;
    if (selectorEmpty(selector))
      out.push(invalid('spec.selector', selectorJson(selector), `empty selector is invalid for ${what}`));
  }
  // LabelSelectorAsSelector fails on what the checks above refuse; the template is then not checked.
  if (!selectorValid) {
    out.push(invalid('spec.selector', selectorJson(selector), 'invalid label selector'));
    return out;
  }
  const labels = asObj(template.metadata).labels as Record<string, string> | undefined;
  const matchesAll = selector !== undefined && selector !== null && selectorEmpty(selector);
  if (!matchesAll && !(selector && selectorMatches(asObj(selector), labels)))
    out.push(
      invalid('spec.template.metadata.labels', labels ?? null, '`selector` does not match template `labels`'),
    );
  // A StatefulSet's pods get a volume per claim template, which their mounts name.
  const claims = objList(spec.volumeClaimTemplates)
    .map((t) => asObj(t.metadata).name)
    .filter((n): n is string => typeof n === 'string');
  out.push(...podTemplateCauses(template, 'spec.template', claims));
  out.push(...restartAlwaysCauses(template, 'spec.template'));
  return out;
}

function strategyCauses(strategy: Obj): StatusCause[] {
  const path = 'spec.strategy';
  const type = strategy.type;
  if (type === 'Recreate') {
    return strategy.rollingUpdate !== undefined && strategy.rollingUpdate !== null
      ? [forbidden(`${path}.rollingUpdate`, "may not be specified when strategy `type` is 'Recreate'")]
      : [];
  }
  if (type !== 'RollingUpdate' && type !== undefined)
    return [notSupported(path, strategy, ['Recreate', 'RollingUpdate'])];
  const ru = strategy.rollingUpdate;
  if (ru === undefined || ru === null) return [];
  const { maxUnavailable, maxSurge } = asObj(ru);
  const at = `${path}.rollingUpdate`;
  const out = [
    ...intOrPercentCauses(maxUnavailable, `${at}.maxUnavailable`),
    ...intOrPercentCauses(maxSurge, `${at}.maxSurge`),
  ];
  if (intOrPercentValue(maxUnavailable) === 0 && intOrPercentValue(maxSurge) === 0)
    out.push(invalid(`${at}.maxUnavailable`, maxUnavailable ?? 0, 'may not be 0 when `maxSurge` is 0'));
  out.push(...notOver100(maxUnavailable, `${at}.maxUnavailable`));
  return out;
}

/** ValidateDeploymentSpec. */
export function deploymentCauses(o: StoredObject): StatusCause[] {
  const spec = asObj(o.spec);
  const out = nonNegative(spec.replicas, 'spec.replicas');
  out.push(...selectorAndTemplate(spec, 'deployment'));
  out.push(...strategyCauses(asObj(spec.strategy)));
  out.push(...nonNegative(spec.minReadySeconds, 'spec.minReadySeconds'));
  out.push(...nonNegative(spec.revisionHistoryLimit, 'spec.revisionHistoryLimit'));
  const deadline = spec.progressDeadlineSeconds;
  if (typeof deadline === 'number') {
    out.push(...nonNegative(deadline, 'spec.progressDeadlineSeconds'));
    if (deadline <= (typeof spec.minReadySeconds === 'number' ? spec.minReadySeconds : 0))
      out.push(invalid('spec.progressDeadlineSeconds', deadline, 'must be greater than minReadySeconds'));
  }
  return out;
}

/** ValidateReplicaSetSpec. */
export function replicaSetCauses(o: StoredObject): StatusCause[] {
  const spec = asObj(o.spec);
  const out = nonNegative(spec.replicas, 'spec.replicas');
  out.push(...nonNegative(spec.minReadySeconds, 'spec.minReadySeconds'));
  out.push(...selectorAndTemplate(spec, 'deployment'));
  return out;
}

/** ValidateStatefulSetSpec, in the part an agent's manifests can trip. */
export function statefulSetCauses(o: StoredObject): StatusCause[] {
  const spec = asObj(o.spec);
  const out: StatusCause[] = [];
  const policy = spec.podManagementPolicy;
  if (policy !== undefined && policy !== 'OrderedReady' && policy !== 'Parallel')
    out.push(notSupported('spec.podManagementPolicy', policy, ['OrderedReady', 'Parallel']));
  const strategy = asObj(spec.updateStrategy);
  if (strategy.type !== undefined && strategy.type !== 'RollingUpdate' && strategy.type !== 'OnDelete')
    out.push(notSupported('spec.updateStrategy', strategy, ['OnDelete', 'RollingUpdate']));
  out.push(
    ...nonNegative(asObj(strategy.rollingUpdate).partition, 'spec.updateStrategy.rollingUpdate.partition'),
  );
  out.push(...nonNegative(spec.replicas, 'spec.replicas'));
  out.push(...nonNegative(spec.minReadySeconds, 'spec.minReadySeconds'));
  out.push(...selectorAndTemplate(spec, 'statefulset'));
  return out;
}
