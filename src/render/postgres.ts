import { DATASTORE_USERS, LIMITS, POSTGRES_DEFAULTS } from './defaults.ts';
import { commandAndArgs, resourceDefaults } from './operator-defaults.ts';
import { invalidSpec } from './errors.ts';
import { ANNOTATIONS } from '../labels.ts';
import { objectLabels, selectorLabels, stableLabels } from './labels.ts';
import { datastorePodSpec, podAnnotations } from './pod.ts';
import { defaultContainerSecurityContext } from './policy.ts';
import { storageQuantity } from './quantities.ts';
import { readNumber, resolveResources, resourceFields } from './resources.ts';
import { type RenderedObject, meta, type RenderContext } from './types.ts';

function maxConnections(ctx: RenderContext): number {
  const v = ctx.spec.db_max_connections;
  if (v === undefined || v === null) return POSTGRES_DEFAULTS.maxConnections;
  if (!Number.isInteger(v) || v < 1 || v > LIMITS.maxConnections) {
    throw invalidSpec(
      'db_max_connections',
      `db_max_connections (${v}) must be a whole number in 1..${LIMITS.maxConnections}`,
    );
  }
  return v;
}

/**
 * The bundled Postgres: credentials Secret (created once by the applier, which adds a random
 * POSTGRES_PASSWORD and never overwrites it), headless Service and StatefulSet `b-postgres` with
 * one volume claim (kept when the StatefulSet goes). None when the deployment brings
 * `POSTGRES_URI_CUSTOM`.
 */
export function renderPostgres(ctx: RenderContext): RenderedObject[] {
  if (!ctx.bundledPostgres) return [];
  const resources = resolveResources(
    ctx.spec,
    resourceFields('db_'),
    resourceDefaults(ctx.settings, 'postgres'),
  );
  const storageGi = readNumber(ctx.spec, 'db_storage_gi', LIMITS.maxStorageGi) ?? POSTGRES_DEFAULTS.storageGi;
  const connections = maxConnections(ctx);
  const { postgres: name, postgresCredentials: credentials } = ctx.names;
  const secret: RenderedObject = {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: meta(ctx, credentials, 'postgres', {
      [ANNOTATIONS.createOnly]: 'true',
      [ANNOTATIONS.generateKeys]: 'POSTGRES_PASSWORD',
    }),
    type: 'Opaque',
    stringData: { POSTGRES_DB: POSTGRES_DEFAULTS.database, POSTGRES_USER: POSTGRES_DEFAULTS.user },
  };
  const service: RenderedObject = {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: meta(ctx, name, 'postgres'),
    spec: {
      clusterIP: 'None',
      ports: [{ name: 'postgres', port: POSTGRES_DEFAULTS.port, protocol: 'TCP', targetPort: 'postgres' }],
      selector: selectorLabels(ctx.labels, 'postgres'),
    },
  };
  const fromCredentials = (key: string) => ({
    name: key,
    valueFrom: { secretKeyRef: { key, name: credentials } },
  });
  const container: Record<string, unknown> & { name: string } = {
    name: 'postgres',
    image: ctx.settings.postgresImage,
  };
  const { command, args } = commandAndArgs(ctx.settings, 'postgres');
  if (command) container.command = command;
  Object.assign(container, {
    // The settings' args come after mooring's, so they may set any other server option.
    args: ['-c', `max_connections=${connections}`, ...(args ?? [])],
    env: [
      fromCredentials('POSTGRES_USER'),
      fromCredentials('POSTGRES_PASSWORD'),
      fromCredentials('POSTGRES_DB'),
      { name: 'PGDATA', value: POSTGRES_DEFAULTS.pgdata },
    ],
    ports: [{ containerPort: POSTGRES_DEFAULTS.port, name: 'postgres', protocol: 'TCP' }],
    readinessProbe: { exec: { command: ['sh', '-c', 'pg_isready -U "$POSTGRES_USER" -d "$POSTGRES_DB"'] } },
    resources,
    securityContext: defaultContainerSecurityContext(ctx.settings.policy.podSecurity, {
      runAsNonRoot: false,
    }),
    volumeMounts: [{ mountPath: POSTGRES_DEFAULTS.mountPath, name: POSTGRES_DEFAULTS.claimTemplate }],
  });
  const annotations = podAnnotations(ctx.pod);
  const claimSpec: Record<string, unknown> = {
    accessModes: ['ReadWriteOnce'],
    resources: { requests: { storage: storageQuantity(storageGi) } },
  };
  if (ctx.settings.storageClassName) claimSpec.storageClassName = ctx.settings.storageClassName;
  const statefulSet: RenderedObject = {
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: meta(ctx, name, 'postgres'),
    spec: {
      persistentVolumeClaimRetentionPolicy: { whenDeleted: 'Retain', whenScaled: 'Retain' },
      replicas: ctx.scaledToZero ? 0 : 1,
      selector: { matchLabels: selectorLabels(ctx.labels, 'postgres') },
      serviceName: name,
      template: {
        metadata: { ...(annotations ? { annotations } : {}), labels: objectLabels(ctx.labels, 'postgres') },
        spec: datastorePodSpec(ctx, container, DATASTORE_USERS.postgres),
      },
      volumeClaimTemplates: [
        // Immutable once created: only labels that never change (not the user's).
        {
          metadata: { labels: stableLabels(ctx.labels, 'postgres'), name: POSTGRES_DEFAULTS.claimTemplate },
          spec: claimSpec,
        },
      ],
    },
  };
  return [secret, service, statefulSet];
}
