/**
 * Table of invalid objects and the 422 a real kube-apiserver 1.34 answers for each: the causes in
 * order, worded as pkg/apis/<group>/validation and apimachinery's field errors word them.
 */
import { deployment, type Json } from '../helpers.ts';

export interface Cause {
  reason: string;
  field: string;
  message: string;
}

export interface Case {
  name: string;
  /** Collection path the object is POSTed to. */
  path: string;
  body: Json;
  causes: Cause[];
}

export const DEPLOY = '/apis/apps/v1/namespaces/default/deployments';
export const STS = '/apis/apps/v1/namespaces/default/statefulsets';
export const SVC = '/api/v1/namespaces/default/services';
export const SECRET = '/api/v1/namespaces/default/secrets';
export const CM = '/api/v1/namespaces/default/configmaps';
export const PDB = '/apis/policy/v1/namespaces/default/poddisruptionbudgets';
export const HPA = '/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers';
export const NETPOL = '/apis/networking.k8s.io/v1/namespaces/default/networkpolicies';
export const INGRESS = '/apis/networking.k8s.io/v1/namespaces/default/ingresses';

const C0 = 'spec.template.spec.containers[0]';
const PORT_RANGE = 'must be between 1 and 65535, inclusive';
const LABEL_VALUE =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";
const CONFIG_KEY =
  "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')";

const invalid = (field: string, message: string): Cause => ({ reason: 'FieldValueInvalid', field, message });

/** A valid Deployment named `name`, changed by `edit`. */
export function deploy(name: string, edit: (d: Json) => void): Json {
  const d: Json = deployment(name);
  edit(d);
  return d;
}

function sts(name: string, edit: (s: Json) => void = () => {}): Json {
  const s: Json = {
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: { name },
    spec: {
      serviceName: name,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: { containers: [{ name: 'db', image: 'postgres:16' }] },
      },
    },
  };
  edit(s);
  return s;
}

function svc(name: string, spec: Json): Json {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name },
    spec: { selector: { app: name }, ...spec },
  };
}

export const APPS_CASES: Case[] = [
  {
    name: 'Deployment: containerPort 70000',
    path: DEPLOY,
    body: deploy('port', (d) => {
      d.spec.template.spec.containers[0].ports = [{ containerPort: 70000 }];
    }),
    causes: [invalid(`${C0}.ports[0].containerPort`, `Invalid value: 70000: ${PORT_RANGE}`)],
  },
  {
    name: 'Deployment: duplicate container names',
    path: DEPLOY,
    body: deploy('dup', (d) => {
      d.spec.template.spec.containers.push({ name: 'app', image: 'busybox' });
    }),
    causes: [
      {
        reason: 'FieldValueDuplicate',
        field: 'spec.template.spec.containers[1].name',
        message: 'Duplicate value: "app"',
      },
    ],
  },
  {
    name: 'Deployment: an invalid label value in the selector',
    path: DEPLOY,
    body: deploy('selval', (d) => {
      d.spec.selector.matchLabels.tier = 'front end';
      d.spec.template.metadata.labels.tier = 'front end';
    }),
    causes: [
      invalid('spec.selector.matchLabels', `Invalid value: "front end": ${LABEL_VALUE}`),
      invalid(
        'spec.selector',
        'Invalid value: {"matchLabels":{"app":"selval","tier":"front end"}}: invalid label selector',
      ),
    ],
  },
  {
    name: 'Deployment: an invalid label value in metadata.labels',
    path: DEPLOY,
    body: deploy('labelval', (d) => {
      d.metadata.labels.team = '-core-';
    }),
    causes: [invalid('metadata.labels', `Invalid value: "-core-": ${LABEL_VALUE}`)],
  },
  {
    name: 'Deployment: a bad annotation key',
    path: DEPLOY,
    body: deploy('annot', (d) => {
      d.metadata.annotations = { 'example.com/bad key': 'x' };
    }),
    causes: [
      invalid(
        'metadata.annotations',
        `Invalid value: "example.com/bad key": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
      ),
    ],
  },
  {
    name: 'Deployment: an env var name with "="',
    path: DEPLOY,
    body: deploy('envname', (d) => {
      d.spec.template.spec.containers[0].env = [{ name: 'A=B', value: '1' }];
    }),
    causes: [
      invalid(
        `${C0}.env[0].name`,
        `Invalid value: "A=B": a valid environment variable name must consist only of printable ASCII characters other than '='`,
      ),
    ],
  },
  {
    name: 'Deployment: a request above its limit',
    path: DEPLOY,
    body: deploy('reqlim', (d) => {
      d.spec.template.spec.containers[0].resources = { requests: { cpu: '2' }, limits: { cpu: '1' } };
    }),
    causes: [
      invalid(`${C0}.resources.requests`, 'Invalid value: "2": must be less than or equal to cpu limit of 1'),
    ],
  },
  {
    name: 'Deployment: maxSurge 0 with maxUnavailable 0',
    path: DEPLOY,
    body: deploy('zero', (d) => {
      d.spec.strategy = { type: 'RollingUpdate', rollingUpdate: { maxSurge: 0, maxUnavailable: 0 } };
    }),
    causes: [
      invalid(
        'spec.strategy.rollingUpdate.maxUnavailable',
        'Invalid value: 0: may not be 0 when `maxSurge` is 0',
      ),
    ],
  },
  {
    name: 'Deployment: restartPolicy Never',
    path: DEPLOY,
    body: deploy('never', (d) => {
      d.spec.template.spec.restartPolicy = 'Never';
    }),
    causes: [
      {
        reason: 'FieldValueNotSupported',
        field: 'spec.template.spec.restartPolicy',
        message: 'Unsupported value: "Never": supported values: "Always"',
      },
    ],
  },
  {
    name: 'Deployment: Recreate with rollingUpdate kept',
    path: DEPLOY,
    body: deploy('recreate', (d) => {
      d.spec.strategy = { type: 'Recreate', rollingUpdate: { maxSurge: 1 } };
    }),
    causes: [
      {
        reason: 'FieldValueForbidden',
        field: 'spec.strategy.rollingUpdate',
        message: "Forbidden: may not be specified when strategy `type` is 'Recreate'",
      },
    ],
  },
  {
    name: 'Deployment: selector not matching the template labels',
    path: DEPLOY,
    body: deploy('mismatch', (d) => {
      d.spec.template.metadata.labels = { app: 'other' };
    }),
    causes: [
      invalid(
        'spec.template.metadata.labels',
        'Invalid value: {"app":"other"}: `selector` does not match template `labels`',
      ),
    ],
  },
  {
    name: 'Deployment: a name that is no DNS-1123 subdomain',
    path: DEPLOY,
    body: deploy('Web_1', () => {}),
    causes: [
      invalid(
        'metadata.name',
        `Invalid value: "Web_1": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
      ),
    ],
  },
  {
    name: 'Deployment: a container name that is no DNS-1123 label',
    path: DEPLOY,
    body: deploy('cname', (d) => {
      d.spec.template.spec.containers[0].name = 'App_1';
    }),
    causes: [
      invalid(
        `${C0}.name`,
        `Invalid value: "App_1": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`,
      ),
    ],
  },
  {
    name: 'Deployment: a volumeMount naming no volume',
    path: DEPLOY,
    body: deploy('mount', (d) => {
      d.spec.template.spec.containers[0].volumeMounts = [{ name: 'data', mountPath: '/data' }];
    }),
    causes: [
      { reason: 'FieldValueNotFound', field: `${C0}.volumeMounts[0].name`, message: 'Not found: "data"' },
    ],
  },
  {
    name: 'StatefulSet: restartPolicy OnFailure',
    path: STS,
    body: sts('db', (s) => {
      s.spec.template.spec.restartPolicy = 'OnFailure';
    }),
    causes: [
      {
        reason: 'FieldValueNotSupported',
        field: 'spec.template.spec.restartPolicy',
        message: 'Unsupported value: "OnFailure": supported values: "Always"',
      },
    ],
  },
  {
    name: 'StatefulSet: selector not matching the template labels',
    path: STS,
    body: sts('db2', (s) => {
      s.spec.template.metadata.labels = { app: 'x' };
    }),
    causes: [
      invalid(
        'spec.template.metadata.labels',
        'Invalid value: {"app":"x"}: `selector` does not match template `labels`',
      ),
    ],
  },
];

export const CORE_CASES: Case[] = [
  {
    name: 'Service: port 70000 (targetPort defaults to it)',
    path: SVC,
    body: svc('web', { ports: [{ port: 70000 }] }),
    causes: [
      invalid('spec.ports[0].port', `Invalid value: 70000: ${PORT_RANGE}`),
      invalid('spec.ports[0].targetPort', `Invalid value: 70000: ${PORT_RANGE}`),
    ],
  },
  {
    name: 'Service: duplicate port names',
    path: SVC,
    body: svc('dup', {
      ports: [
        { name: 'http', port: 80 },
        { name: 'http', port: 81 },
      ],
    }),
    causes: [
      { reason: 'FieldValueDuplicate', field: 'spec.ports[1].name', message: 'Duplicate value: "http"' },
    ],
  },
  {
    name: 'Service: an unnamed port among several',
    path: SVC,
    body: svc('unnamed', { ports: [{ name: 'http', port: 80 }, { port: 81 }] }),
    causes: [{ reason: 'FieldValueRequired', field: 'spec.ports[1].name', message: 'Required value' }],
  },
  {
    name: 'Service: an invalid label value in the selector',
    path: SVC,
    body: {
      ...svc('sel', { ports: [{ port: 80 }] }),
      spec: { selector: { app: 'a b' }, ports: [{ port: 80 }] },
    },
    causes: [invalid('spec.selector', `Invalid value: "a b": ${LABEL_VALUE}`)],
  },
  {
    name: 'Service: a name that is no DNS-1035 label',
    path: SVC,
    body: svc('1web', { ports: [{ port: 80 }] }),
    causes: [
      invalid(
        'metadata.name',
        `Invalid value: "1web": a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')`,
      ),
    ],
  },
  {
    name: 'Secret: a data key with a space',
    path: SECRET,
    body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's1' }, data: { 'bad key': 'eA==' } },
    causes: [invalid('data[bad key]', `Invalid value: "bad key": ${CONFIG_KEY}`)],
  },
  {
    name: 'Secret: a TLS Secret without its keys',
    path: SECRET,
    body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's2' }, type: 'kubernetes.io/tls', data: {} },
    causes: [
      { reason: 'FieldValueRequired', field: 'data[tls.crt]', message: 'Required value' },
      { reason: 'FieldValueRequired', field: 'data[tls.key]', message: 'Required value' },
    ],
  },
  {
    name: 'ConfigMap: a data key starting with ".."',
    path: CM,
    body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c1' }, data: { '..x': '1' } },
    causes: [invalid('data[..x]', `Invalid value: "..x": must not start with '..'`)],
  },
  {
    name: 'ConfigMap: a key in both data and binaryData',
    path: CM,
    body: {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'c2' },
      data: { k: '1' },
      binaryData: { k: 'eA==' },
    },
    causes: [invalid('binaryData', 'Invalid value: "k": duplicate of key present in data')],
  },
];

export const OTHER_CASES: Case[] = [
  {
    name: 'PodDisruptionBudget: minAvailable over 100%',
    path: PDB,
    body: {
      apiVersion: 'policy/v1',
      kind: 'PodDisruptionBudget',
      metadata: { name: 'p1' },
      spec: { minAvailable: '150%', selector: { matchLabels: { app: 'web' } } },
    },
    causes: [invalid('spec.minAvailable', 'Invalid value: "150%": must not be greater than 100%')],
  },
  {
    name: 'HorizontalPodAutoscaler: maxReplicas below minReplicas',
    path: HPA,
    body: {
      apiVersion: 'autoscaling/v2',
      kind: 'HorizontalPodAutoscaler',
      metadata: { name: 'h1' },
      spec: {
        scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' },
        minReplicas: 5,
        maxReplicas: 2,
      },
    },
    causes: [invalid('spec.maxReplicas', 'Invalid value: 2: must be greater than or equal to `minReplicas`')],
  },
  {
    name: 'NetworkPolicy: an ingress port 70000',
    path: NETPOL,
    body: {
      apiVersion: 'networking.k8s.io/v1',
      kind: 'NetworkPolicy',
      metadata: { name: 'n1' },
      spec: { podSelector: {}, ingress: [{ ports: [{ port: 70000 }] }] },
    },
    causes: [invalid('spec.ingress[0].ports[0].port', `Invalid value: 70000: ${PORT_RANGE}`)],
  },
  {
    name: 'Ingress: a Prefix path that is not absolute',
    path: INGRESS,
    body: {
      apiVersion: 'networking.k8s.io/v1',
      kind: 'Ingress',
      metadata: { name: 'i1' },
      spec: {
        rules: [
          {
            host: 'web.example.com',
            http: {
              paths: [
                {
                  path: 'api',
                  pathType: 'Prefix',
                  backend: { service: { name: 'web', port: { number: 80 } } },
                },
              ],
            },
          },
        ],
      },
    },
    causes: [invalid('spec.rules[0].http.paths[0].path', 'Invalid value: "api": must be an absolute path')],
  },
];
