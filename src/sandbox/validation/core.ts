/** core/v1 Service, Secret and ConfigMap, as core validation checks them. */
import type { StatusCause } from '../status.ts';
import type { StoredObject } from '../types.ts';
import { duplicate, invalid, invalidEach, notSupported, required, tooLong } from './field-errors.ts';
import { configMapKey, dns1123Label, portName, portNumber } from './formats.ts';
import { asObj, labelCauses, objList } from './meta.ts';

const SERVICE_TYPES = ['ClusterIP', 'ExternalName', 'LoadBalancer', 'NodePort'];
const PROTOCOLS = ['SCTP', 'TCP', 'UDP'];

function targetPortCauses(target: unknown, field: string): StatusCause[] {
  if (typeof target === 'number') return invalidEach(field, target, portNumber(target));
  if (typeof target === 'string' && target !== '') return invalidEach(field, target, portName(target));
  return [];
}

/** ValidateService: ports (names, numbers, protocols, target ports), type, selector labels. */
export function serviceCauses(o: StoredObject): StatusCause[] {
  const spec = asObj(o.spec);
  const ports = objList(spec.ports);
  const out: StatusCause[] = [];
  const headless = spec.clusterIP === 'None';
  if (ports.length === 0 && !headless && spec.type !== 'ExternalName') out.push(required('spec.ports'));
  if (spec.type !== undefined && !SERVICE_TYPES.includes(String(spec.type)))
    out.push(notSupported('spec.type', spec.type, SERVICE_TYPES));
  const names = new Set<string>();
  ports.forEach((p, i) => {
    const at = `spec.ports[${i}]`;
    const name = typeof p.name === 'string' ? p.name : '';
    if (ports.length > 1 && name === '') out.push(required(`${at}.name`));
    else if (name !== '') {
      out.push(...invalidEach(`${at}.name`, name, dns1123Label(name)));
      if (names.has(name)) out.push(duplicate(`${at}.name`, name));
      names.add(name);
    }
    if (typeof p.port === 'number') out.push(...invalidEach(`${at}.port`, p.port, portNumber(p.port)));
    if (typeof p.protocol === 'string' && !PROTOCOLS.includes(p.protocol))
      out.push(notSupported(`${at}.protocol`, p.protocol, PROTOCOLS));
    out.push(...targetPortCauses(p.targetPort, `${at}.targetPort`));
  });
  out.push(...labelCauses(spec.selector, 'spec.selector'));
  return out;
}

const DATA_MAX = 1024 * 1024;

function keyCauses(data: unknown, path: string): StatusCause[] {
  return Object.keys(asObj(data)).flatMap((key) => invalidEach(`${path}[${key}]`, key, configMapKey(key)));
}

/** Bytes of base64 data once decoded. */
function decodedSize(data: unknown): number {
  let size = 0;
  for (const v of Object.values(asObj(data)))
    if (typeof v === 'string') size += Buffer.from(v, 'base64').length;
  return size;
}

/** The keys a Secret of a built-in type must carry. */
const TYPE_KEYS: Record<string, string[]> = {
  'kubernetes.io/tls': ['tls.crt', 'tls.key'],
  'kubernetes.io/dockerconfigjson': ['.dockerconfigjson'],
  'kubernetes.io/dockercfg': ['.dockercfg'],
  'kubernetes.io/ssh-auth': ['ssh-privatekey'],
};

/** ValidateSecret: data keys, 1 MiB of data, the keys its type requires. */
export function secretCauses(o: StoredObject): StatusCause[] {
  const out = keyCauses(o.data, 'data');
  if (decodedSize(o.data) > DATA_MAX) out.push(tooLong('data', DATA_MAX));
  const data = asObj(o.data);
  const type = typeof o.type === 'string' ? o.type : '';
  for (const key of TYPE_KEYS[type] ?? []) if (!(key in data)) out.push(required(`data[${key}]`));
  if (type === 'kubernetes.io/service-account-token') {
    const annotations = asObj(o.metadata.annotations);
    if (!annotations['kubernetes.io/service-account.name'])
      out.push(required('metadata.annotations[kubernetes.io/service-account.name]'));
  }
  return out;
}

/** ValidateConfigMap: data and binaryData keys, no key in both, 1 MiB in all (the whole object's error). */
export function configMapCauses(o: StoredObject): StatusCause[] {
  const out = keyCauses(o.data, 'data');
  const data = asObj(o.data);
  let size = 0;
  for (const v of Object.values(data)) if (typeof v === 'string') size += Buffer.byteLength(v);
  for (const key of Object.keys(asObj(o.binaryData))) {
    out.push(...invalidEach(`binaryData[${key}]`, key, configMapKey(key)));
    if (key in data) out.push(invalid('binaryData', key, 'duplicate of key present in data'));
  }
  size += decodedSize(o.binaryData);
  if (size > DATA_MAX) out.push(tooLong('[]', DATA_MAX));
  return out;
}
