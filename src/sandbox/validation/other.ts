/** policy/v1 PDB, autoscaling/v2 HPA, networking.k8s.io/v1 NetworkPolicy and Ingress. */
import type { StatusCause } from '../status.ts';
import type { StoredObject } from '../types.ts';
import { goValue, invalid, invalidEach, notSupported, Raw, required } from './field-errors.ts';
import { dns1123Subdomain, portName, portNumber } from './formats.ts';
import { intOrPercentCauses } from './apps.ts';
import { asObj, objList, selectorCauses, selectorJson } from './meta.ts';

/** The internal PodDisruptionBudgetSpec as Go marshals it (its fields carry no json tags). */
function pdbSpecJson(spec: Record<string, unknown>): Raw {
  const v = (x: unknown): string => (x === undefined ? 'null' : goValue(x));
  const selector = spec.selector === undefined ? 'null' : selectorJson(spec.selector).text;
  return new Raw(
    `{"MinAvailable":${v(spec.minAvailable)},"Selector":${selector},"MaxUnavailable":${v(spec.maxUnavailable)},"UnhealthyPodEvictionPolicy":${v(spec.unhealthyPodEvictionPolicy)}}`,
  );
}

function over100(value: unknown, field: string): StatusCause[] {
  if (typeof value !== 'string' || !/^[0-9]+%$/.test(value)) return [];
  return Number.parseInt(value, 10) > 100 ? [invalid(field, value, 'must not be greater than 100%')] : [];
}

/** ValidatePodDisruptionBudgetSpec. */
export function pdbCauses(o: StoredObject): StatusCause[] {
  const spec = asObj(o.spec);
  const out: StatusCause[] = [];
  if (spec.minAvailable !== undefined && spec.maxUnavailable !== undefined)
    out.push(invalid('spec', pdbSpecJson(spec), 'minAvailable and maxUnavailable cannot be both set'));
  for (const key of ['minAvailable', 'maxUnavailable']) {
    if (spec[key] === undefined) continue;
    out.push(...intOrPercentCauses(spec[key], `spec.${key}`), ...over100(spec[key], `spec.${key}`));
  }
  out.push(...selectorCauses(spec.selector, 'spec.selector'));
  const policy = spec.unhealthyPodEvictionPolicy;
  if (policy !== undefined && policy !== 'IfHealthyBudget' && policy !== 'AlwaysAllow')
    out.push(notSupported('spec.unhealthyPodEvictionPolicy', policy, ['AlwaysAllow', 'IfHealthyBudget']));
  return out;
}

/** ValidateHorizontalPodAutoscalerSpec, its replica bounds and target reference. */
export function hpaCauses(o: StoredObject): StatusCause[] {
  const spec = asObj(o.spec);
  const out: StatusCause[] = [];
  const min = spec.minReplicas;
  const max = spec.maxReplicas;
  if (typeof min === 'number' && min < 0)
    out.push(invalid('spec.minReplicas', min, 'must be greater than or equal to 0'));
  if (typeof max === 'number' && max < 1)
    out.push(invalid('spec.maxReplicas', max, 'must be greater than 0'));
  if (typeof min === 'number' && typeof max === 'number' && max < min)
    out.push(invalid('spec.maxReplicas', max, 'must be greater than or equal to `minReplicas`'));
  const ref = asObj(spec.scaleTargetRef);
  if (!ref.kind) out.push(required('spec.scaleTargetRef.kind'));
  if (!ref.name) out.push(required('spec.scaleTargetRef.name'));
  return out;
}

function policyPortCauses(ports: unknown, path: string): StatusCause[] {
  return objList(ports).flatMap((p, i) => {
    const at = `${path}[${i}]`;
    const out: StatusCause[] = [];
    if (typeof p.port === 'number') out.push(...invalidEach(`${at}.port`, p.port, portNumber(p.port)));
    if (typeof p.port === 'string') out.push(...invalidEach(`${at}.port`, p.port, portName(p.port)));
    if (typeof p.protocol === 'string' && !['SCTP', 'TCP', 'UDP'].includes(p.protocol))
      out.push(notSupported(`${at}.protocol`, p.protocol, ['SCTP', 'TCP', 'UDP']));
    return out;
  });
}

/** ValidateNetworkPolicySpec: the pod selector, rule ports and peers' selectors. */
export function networkPolicyCauses(o: StoredObject): StatusCause[] {
  const spec = asObj(o.spec);
  const out = selectorCauses(spec.podSelector, 'spec.podSelector');
  for (const [key, peers] of [
    ['ingress', 'from'],
    ['egress', 'to'],
  ] as const) {
    objList(spec[key]).forEach((rule, i) => {
      out.push(...policyPortCauses(rule.ports, `spec.${key}[${i}].ports`));
      objList(rule[peers]).forEach((peer, j) => {
        const at = `spec.${key}[${i}].${peers}[${j}]`;
        out.push(...selectorCauses(peer.podSelector, `${at}.podSelector`));
        out.push(...selectorCauses(peer.namespaceSelector, `${at}.namespaceSelector`));
      });
    });
  }
  const types = Array.isArray(spec.policyTypes) ? (spec.policyTypes as unknown[]) : [];
  types.forEach((t, i) => {
    if (t !== 'Ingress' && t !== 'Egress')
      out.push(notSupported(`spec.policyTypes[${i}]`, t, ['Egress', 'Ingress']));
  });
  return out;
}

function backendPortCauses(backend: unknown, path: string): StatusCause[] {
  const port = asObj(asObj(asObj(backend).service).port);
  return typeof port.number === 'number'
    ? invalidEach(`${path}.service.port.number`, port.number, portNumber(port.number))
    : [];
}

/** ValidateIngressSpec: hosts, path types and absolute paths, backend ports. */
export function ingressCauses(o: StoredObject): StatusCause[] {
  const spec = asObj(o.spec);
  const out = spec.defaultBackend ? backendPortCauses(spec.defaultBackend, 'spec.defaultBackend') : [];
  objList(spec.rules).forEach((rule, i) => {
    const at = `spec.rules[${i}]`;
    if (typeof rule.host === 'string' && rule.host !== '') {
      const host = rule.host.startsWith('*.') ? rule.host.slice(2) : rule.host;
      out.push(...invalidEach(`${at}.host`, rule.host, dns1123Subdomain(host)));
    }
    objList(asObj(rule.http).paths).forEach((p, j) => {
      const pat = `${at}.http.paths[${j}]`;
      if (p.pathType === undefined) out.push(required(`${pat}.pathType`, 'pathType must be specified'));
      else if (!['Exact', 'Prefix', 'ImplementationSpecific'].includes(String(p.pathType)))
        out.push(notSupported(`${pat}.pathType`, p.pathType, ['Exact', 'ImplementationSpecific', 'Prefix']));
      if (p.pathType !== 'ImplementationSpecific' && typeof p.path === 'string' && !p.path.startsWith('/'))
        out.push(invalid(`${pat}.path`, p.path, 'must be an absolute path'));
      out.push(...backendPortCauses(p.backend, `${pat}.backend`));
    });
  });
  return out;
}
