/**
 * Pod templates as core validation checks them (ValidatePodTemplateSpec, ValidatePodSpec): template
 * labels and annotations, container names, images, ports, env names, volume mounts and resources.
 */
import type { StatusCause } from '../status.ts';
import { duplicate, invalid, invalidEach, notFound, notSupported, required } from './field-errors.ts';
import { dns1123Label, envVarName, portName, portNumber } from './formats.ts';
import { annotationCauses, asObj, labelCauses, type Obj, objList } from './meta.ts';
import { exceeds, isNegative, quantityText, quantityValue } from './quantity.ts';

const PROTOCOLS = ['SCTP', 'TCP', 'UDP'];

function portCauses(ports: Obj[], path: string): StatusCause[] {
  const out: StatusCause[] = [];
  const names = new Set<string>();
  ports.forEach((p, i) => {
    const at = `${path}[${i}]`;
    if (typeof p.name === 'string' && p.name !== '') {
      const msgs = portName(p.name);
      if (msgs.length > 0) out.push(...invalidEach(`${at}.name`, p.name, msgs));
      else if (names.has(p.name)) out.push(duplicate(`${at}.name`, p.name));
      else names.add(p.name);
    }
    if (p.containerPort === undefined || p.containerPort === 0) out.push(required(`${at}.containerPort`));
    else if (typeof p.containerPort === 'number')
      out.push(...invalidEach(`${at}.containerPort`, p.containerPort, portNumber(p.containerPort)));
    if (typeof p.hostPort === 'number' && p.hostPort !== 0)
      out.push(...invalidEach(`${at}.hostPort`, p.hostPort, portNumber(p.hostPort)));
    if (typeof p.protocol === 'string' && !PROTOCOLS.includes(p.protocol))
      out.push(notSupported(`${at}.protocol`, p.protocol, PROTOCOLS));
  });
  return out;
}

function envCauses(env: Obj[], path: string): StatusCause[] {
  const out: StatusCause[] = [];
  env.forEach((e, i) => {
    const name = typeof e.name === 'string' ? e.name : '';
    if (name === '') out.push(required(`${path}[${i}].name`));
    out.push(...invalidEach(`${path}[${i}].name`, name, envVarName(name)));
  });
  return out;
}

function mountCauses(mounts: Obj[], volumes: Set<string>, path: string): StatusCause[] {
  const out: StatusCause[] = [];
  mounts.forEach((m, i) => {
    const at = `${path}[${i}]`;
    if (!m.name) out.push(required(`${at}.name`));
    else if (!volumes.has(String(m.name))) out.push(notFound(`${at}.name`, m.name));
    if (!m.mountPath) out.push(required(`${at}.mountPath`));
  });
  return out;
}

/** validateResourceRequirements: no negative quantity, no request above its limit. */
function resourceCauses(resources: Obj, path: string): StatusCause[] {
  const out: StatusCause[] = [];
  const limits = asObj(resources.limits);
  const requests = asObj(resources.requests);
  for (const [name, q] of Object.entries(limits)) {
    const v = quantityValue(q);
    if (v !== undefined && isNegative(v))
      out.push(invalid(`${path}.limits[${name}]`, quantityText(q), 'must be greater than or equal to 0'));
  }
  for (const [name, q] of Object.entries(requests)) {
    const v = quantityValue(q);
    if (v !== undefined && isNegative(v))
      out.push(invalid(`${path}.requests[${name}]`, quantityText(q), 'must be greater than or equal to 0'));
    const limit = limits[name];
    const lv = quantityValue(limit);
    if (v !== undefined && lv !== undefined && exceeds(v, lv)) {
      out.push(
        invalid(
          `${path}.requests`,
          quantityText(q),
          `must be less than or equal to ${name} limit of ${quantityText(limit)}`,
        ),
      );
    }
  }
  return out;
}

function containerCauses(containers: Obj[], volumes: Set<string>, path: string): StatusCause[] {
  const out: StatusCause[] = [];
  const names = new Set<string>();
  containers.forEach((c, i) => {
    const at = `${path}[${i}]`;
    const name = typeof c.name === 'string' ? c.name : '';
    if (name === '') out.push(required(`${at}.name`));
    else out.push(...invalidEach(`${at}.name`, name, dns1123Label(name)));
    if (!c.image) out.push(required(`${at}.image`));
    out.push(...portCauses(objList(c.ports), `${at}.ports`));
    out.push(...envCauses(objList(c.env), `${at}.env`));
    out.push(...mountCauses(objList(c.volumeMounts), volumes, `${at}.volumeMounts`));
    out.push(...resourceCauses(asObj(c.resources), `${at}.resources`));
    if (name !== '' && names.has(name)) out.push(duplicate(`${at}.name`, name));
    names.add(name);
  });
  return out;
}

/**
 * ValidatePodSpec, in the part an agent's manifests can trip. `claims`: volume names the pod gets
 * from elsewhere (a StatefulSet's claim templates), which its mounts may name.
 */
export function podSpecCauses(spec: Obj, path: string, claims: readonly string[] = []): StatusCause[] {
  const out: StatusCause[] = [];
  const volumes = new Set<string>(claims);
  objList(spec.volumes).forEach((v, i) => {
    const name = typeof v.name === 'string' ? v.name : '';
    if (name === '') out.push(required(`${path}.volumes[${i}].name`));
    else if (volumes.has(name)) out.push(duplicate(`${path}.volumes[${i}].name`, name));
    volumes.add(name);
  });
  const containers = objList(spec.containers);
  if (containers.length === 0) out.push(required(`${path}.containers`));
  out.push(...containerCauses(containers, volumes, `${path}.containers`));
  const init = objList(spec.initContainers);
  out.push(...containerCauses(init, volumes, `${path}.initContainers`));
  return out;
}

/** ValidatePodTemplateSpec: the template's labels and annotations, then its pod spec. */
export function podTemplateCauses(
  template: Obj,
  path: string,
  claims: readonly string[] = [],
): StatusCause[] {
  const meta = asObj(template.metadata);
  return [
    ...labelCauses(meta.labels, `${path}.metadata.labels`),
    ...annotationCauses(meta.annotations, `${path}.metadata.annotations`),
    ...podSpecCauses(asObj(template.spec), `${path}.spec`, claims),
  ];
}

/** Controllers' pods restart: any other restartPolicy is refused (ValidatePodTemplateSpecForReplicaSet). */
export function restartAlwaysCauses(template: Obj, path: string): StatusCause[] {
  const policy = asObj(template.spec).restartPolicy;
  if (policy === undefined || policy === 'Always') return [];
  return [notSupported(`${path}.spec.restartPolicy`, policy, ['Always'])];
}
