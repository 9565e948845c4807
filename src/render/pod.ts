import type { ResourceSpecRecord } from '../contract/index.ts';
import { APP_CONTAINER_NAME } from './defaults.ts';
import { convertContainer, convertMounts, type KubeContainer, type KubeVolumeMount } from './containers.ts';
import { invalidSpec } from './errors.ts';
import { ANNOTATIONS } from '../labels.ts';
import { isDnsSubdomain } from '../objects/dns-names.ts';
import { checkUserAnnotations, sortKeys } from './labels.ts';
import { checkPodAnnotations } from './policy.ts';
import { checkMetadataKeys } from './pod-metadata-policy.ts';
import { checkVolumes, type KubeVolume } from './volume-policy.ts';
import { datastorePullSecrets, placementOf } from './operator-defaults.ts';
import type { RenderSettings } from './settings.ts';
import type { RenderContext } from './types.ts';

/**
 * The pod customisation of a ResourceSpec, checked once per render and shared by every workload:
 * app pods (API server, queue, orchestrator, executor) get all of it; the bundled Redis and
 * Postgres pods get only labels, annotations and image_pull_secrets (they do not run the app's
 * code, so they do not get its service account, volumes or extra containers).
 */
export interface PodParts {
  annotations: Record<string, string>;
  serviceAccountName: string | undefined;
  imagePullSecrets: { name: string }[] | undefined;
  volumes: KubeVolume[];
  /** Mounts of the app's own container. */
  mainMounts: KubeVolumeMount[];
  /** The ResourceSpec's native sidecars (restartPolicy Always) first, then its init_containers. */
  initContainers: KubeContainer[];
  /** Sidecars without restartPolicy: regular containers next to the app's. */
  sidecars: KubeContainer[];
}

/** `baseName` is the deployment's: its own bundled Postgres claims may be mounted, no one else's. */
export function podParts(
  spec: ResourceSpecRecord,
  appImage: string,
  settings: RenderSettings,
  baseName: string,
): PodParts {
  const policy = settings.policy;
  const annotations = sortKeys(checkUserAnnotations(spec.annotations));
  checkPodAnnotations(annotations, policy);
  checkMetadataKeys('annotations', annotations, policy.podMetadata);
  const sa = spec.service_account_name || undefined;
  if (sa !== undefined && !isDnsSubdomain(sa)) {
    throw invalidSpec('service_account_name', `service_account_name "${sa}" is not a DNS-1123 subdomain`);
  }
  const pullSecrets = (spec.image_pull_secrets ?? []).map((s) => ({ name: s.name }));
  const volumes = checkVolumes(spec.volumes, policy, baseName);
  const volumeNames = new Set(volumes.map((v) => v.name));
  const mainMounts = convertMounts('volume_mounts', spec.volume_mounts, volumeNames, policy);
  const opts = { appImage, volumeNames, policy };

  const names = new Map<string, string>([[APP_CONTAINER_NAME, 'the app container']]);
  const claim = (field: string, name: string) => {
    const owner = names.get(name);
    if (owner) throw invalidSpec(`${field}.name`, `${field}.name "${name}" is already used by ${owner}`);
    names.set(name, field);
  };
  const native: KubeContainer[] = [];
  const sidecars: KubeContainer[] = [];
  (spec.sidecars ?? []).forEach((c, i) => {
    const field = `sidecars[${i}]`;
    claim(field, c.name);
    const k = convertContainer(field, c, opts);
    (c.restartPolicy === 'Always' ? native : sidecars).push(k);
  });
  const init = (spec.init_containers ?? []).map((c, i) => {
    const field = `init_containers[${i}]`;
    claim(field, c.name);
    return convertContainer(field, c, opts);
  });
  return {
    annotations,
    serviceAccountName: sa,
    imagePullSecrets: pullSecrets.length > 0 ? pullSecrets : undefined,
    volumes,
    mainMounts,
    initContainers: [...native, ...init],
    sidecars,
  };
}

/** The pod securityContext every pod gets. */
export const POD_SECURITY_CONTEXT = { seccompProfile: { type: 'RuntimeDefault' } } as const;

/**
 * The pod securityContext of a bundled datastore: under restricted, also its image's non-root
 * user and group (`DATASTORE_USERS`), with `fsGroup` so that its volume is writable.
 */
function datastoreSecurityContext(
  ctx: Pick<RenderContext, 'settings'>,
  user: { runAsUser: number; runAsGroup: number; fsGroup: number },
): Record<string, unknown> {
  if (ctx.settings.policy.podSecurity !== 'restricted') return POD_SECURITY_CONTEXT;
  return sortKeys({
    ...POD_SECURITY_CONTEXT,
    ...user,
    fsGroupChangePolicy: 'OnRootMismatch',
    runAsNonRoot: true,
  });
}

/** The pod spec of an app workload: its main container plus the ResourceSpec's customisation. */
export function appPodSpec(parts: PodParts, main: KubeContainer): Record<string, unknown> {
  const spec: Record<string, unknown> = {
    containers: [main, ...parts.sidecars],
  };
  if (parts.imagePullSecrets) spec.imagePullSecrets = parts.imagePullSecrets;
  if (parts.initContainers.length > 0) spec.initContainers = parts.initContainers;
  spec.securityContext = POD_SECURITY_CONTEXT;
  if (parts.serviceAccountName) spec.serviceAccountName = parts.serviceAccountName;
  if (parts.volumes.length > 0) spec.volumes = parts.volumes;
  return spec;
}

/** The pod spec of a bundled datastore (Redis, Postgres). */
export function datastorePodSpec(
  ctx: Pick<RenderContext, 'settings' | 'pod'>,
  main: KubeContainer,
  user: { runAsUser: number; runAsGroup: number; fsGroup: number },
  volumes?: KubeVolume[],
): Record<string, unknown> {
  const parts = ctx.pod;
  const spec: Record<string, unknown> = { containers: [main] };
  const pullSecrets = datastorePullSecrets(ctx.settings, parts.imagePullSecrets);
  if (pullSecrets) spec.imagePullSecrets = pullSecrets;
  spec.securityContext = datastoreSecurityContext(ctx, user);
  if (volumes && volumes.length > 0) spec.volumes = volumes;
  return { ...spec, ...placementOf(ctx.settings, 'datastores') };
}

/** Pod template annotations: the user's, plus (app pods only) the revision, so a new revision rolls. */
export function podAnnotations(parts: PodParts, revisionId?: string): Record<string, string> | undefined {
  const a =
    revisionId === undefined
      ? parts.annotations
      : sortKeys({ ...parts.annotations, [ANNOTATIONS.revisionId]: revisionId });
  return Object.keys(a).length > 0 ? a : undefined;
}
