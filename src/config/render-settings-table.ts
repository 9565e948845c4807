import { RENDER_SCALAR_DEFAULTS as RD } from '../render-defaults.ts';
import type { Setting } from './setting.ts';

/** The renderer's rows of the settings table (settings-table.ts), in `--help` order. */
export const RENDER_SETTINGS_ROWS: readonly Setting[] = [
  // The render settings file; the flags below override its members (their defaults are its defaults).
  {
    key: 'settings',
    flag: 'settings',
    env: 'MOORING_SETTINGS',
    kind: 'string',
    defaultText: '(none)',
    description:
      'render settings file, YAML or JSON: the file `mooring render --settings` takes, merged over the same defaults',
  },
  {
    key: 'redisImage',
    flag: 'redis-image',
    env: 'MOORING_REDIS_IMAGE',
    kind: 'string',
    defaultText: `settings redisImage, else ${RD.redisImage}`,
    description: 'image of the Redis component',
  },
  {
    key: 'postgresImage',
    flag: 'postgres-image',
    env: 'MOORING_POSTGRES_IMAGE',
    kind: 'string',
    defaultText: `settings postgresImage, else ${RD.postgresImage}`,
    description: 'image of the Postgres component',
  },
  {
    key: 'storageClass',
    flag: 'storage-class',
    env: 'MOORING_STORAGE_CLASS',
    kind: 'string',
    defaultText: 'settings storageClassName, else the cluster default',
    description: 'storageClassName of Postgres volumes',
  },
  {
    key: 'clusterDomain',
    flag: 'cluster-domain',
    env: 'MOORING_CLUSTER_DOMAIN',
    kind: 'string',
    defaultText: `settings clusterDomain, else ${RD.clusterDomain}`,
    description: 'DNS suffix in service URIs',
  },
  // What deployments may refer to (render settings `references`).
  {
    key: 'serviceAccount',
    flag: 'service-account',
    env: 'MOORING_SERVICE_ACCOUNT',
    kind: 'string',
    defaultText: '-',
    description:
      "the agent's own ServiceAccount (the chart sets it): no deployment may run as it (in $MOORING_POD_NAMESPACE; in any namespace when that is unset)",
  },
  {
    key: 'deploymentServiceAccounts',
    flag: 'deployment-service-accounts',
    env: 'MOORING_DEPLOYMENT_SERVICE_ACCOUNTS',
    kind: 'names',
    defaultText: "any but the agent's",
    description: 'comma list of the ServiceAccounts a deployment may run as',
  },
  {
    key: 'allowServiceAccountTokens',
    flag: 'allow-service-account-tokens',
    env: 'MOORING_ALLOW_SERVICE_ACCOUNT_TOKENS',
    kind: 'bool',
    defaultText: 'settings references.allowServiceAccountTokens, else false',
    description: 'allow projected serviceAccountToken volume sources',
  },
  {
    key: 'namespaceTenants',
    flag: 'namespace-tenants',
    env: 'MOORING_NAMESPACE_TENANTS',
    kind: 'tenants',
    defaultText: 'none bound',
    description: "comma list of namespace=tenant-uuid: a namespace takes only its tenant's deployments",
  },
  {
    key: 'podSecurity',
    flag: 'pod-security',
    env: 'MOORING_POD_SECURITY',
    kind: 'podSecurity',
    defaultText: `settings policy.podSecurity, else ${RD.podSecurity}`,
    description: 'policy: the Pod Security Standard every rendered pod must satisfy: baseline or restricted',
  },
  {
    key: 'allowHostPath',
    flag: 'allow-host-path',
    env: 'MOORING_ALLOW_HOST_PATH',
    kind: 'bool',
    defaultText: 'settings policy.allowHostPath, else false',
    description: 'policy: allow hostPath volumes (exempts the HostPath Volumes control)',
  },
  {
    key: 'allowPrivileged',
    flag: 'allow-privileged',
    env: 'MOORING_ALLOW_PRIVILEGED',
    kind: 'bool',
    defaultText: 'settings policy.allowPrivileged, else false',
    description:
      'policy: allow privileged containers, privilege escalation and any capabilities (exempts the Privileged Containers, Privilege Escalation and Capabilities controls)',
  },
  {
    key: 'allowedVolumeTypes',
    flag: 'allowed-volume-types',
    env: 'MOORING_ALLOWED_VOLUME_TYPES',
    kind: 'volumeTypes',
    defaultText: 'settings policy.allowedVolumeTypes, else none',
    description:
      'policy: comma list of volume types allowed besides configMap, csi, downwardAPI, emptyDir, ephemeral, image, persistentVolumeClaim, projected and secret (e.g. nfs,iscsi)',
  },
];
