import type { DeploymentRecord, RevisionRecord } from '../contract/index.ts';
import { sortForApply } from '../objects/kinds.ts';
import { renderApiServer } from './api-server.ts';
import { checkSecretReferences } from './app.ts';
import { customDatastores } from './datastores.ts';
import { checkSecrets, renderEnvSecret } from './env-secret.ts';
import { RenderError } from './errors.ts';
import { isDnsLabel, isDnsSubdomain } from '../objects/dns-names.ts';
import { checkLabelValue, checkUserLabels } from './labels.ts';
import { checkMetadataKeys } from './pod-metadata-policy.ts';
import { baseNameOf, objectNames } from './names.ts';
import { renderExposure } from './exposure.ts';
import { renderNetworkPolicy } from './network-policy.ts';
import { podParts } from './pod.ts';
import { enforcePodPolicy } from './policy.ts';
import { renderPostgres } from './postgres.ts';
import { renderRedis } from './redis.ts';
import { checkReferences, checkRenderedReferences, checkTenant } from './references.ts';
import type { RenderSettings } from './settings.ts';
import { copyPlain, type RenderContext, type RenderedObject } from './types.ts';
import { renderWorkers } from './workers.ts';

export { RenderError } from './errors.ts';
export { baseNameOf, detectCollisions, type NameCollision } from './names.ts';
export {
  type Component,
  COMPONENTS,
  defaultRenderSettings,
  mergeRenderSettings,
  type RenderPolicy,
  type RenderSettings,
  RENDER_SETTINGS_DEFAULTS,
} from './settings.ts';
export {
  type ExposureSettings,
  ExposureSettingsFile,
  EXPOSURE_KINDS,
  type ExposureKind,
} from './exposure-settings.ts';
export { parseSettingsText, RenderSettingsFile } from './settings-file.ts';
export { checkPodSecurity, type PodSecurityExemptions, type PodSecurityViolation } from './pod-security.ts';
export { type PodSecurityLevel, POD_SECURITY_LEVELS } from '../pod-security-lists.ts';
export type { KubeObject, ObjectMeta } from '../objects/kube-object.ts';
export type { RenderedMeta, RenderedObject } from './types.ts';
export { ANNOTATIONS, LABELS } from '../labels.ts';

export interface RenderInput {
  deployment: DeploymentRecord;
  /** The revision to run (chosen by the caller); absent: the deployment's own revision config. */
  revision?: RevisionRecord | undefined;
  settings: RenderSettings;
}

export interface RenderResult {
  namespace: string;
  baseName: string;
  /** In apply order (objects/kinds.ts, the order the agent applies in); delete in reverse. */
  objects: RenderedObject[];
}

const NAMESPACE_FIELD = 'source_config.listener_config.k8s_namespace';

/**
 * Renders one deployment into Kubernetes objects. Pure: no I/O, clock, environment or randomness;
 * the same input gives byte-identical output. Throws `RenderError` (coded, naming a field) for
 * anything it cannot render; never another error.
 */
export function renderDeployment(input: RenderInput): RenderResult {
  try {
    return renderUnchecked(input);
  } catch (err) {
    if (err instanceof RenderError) throw err;
    // A bug, not bad input: still a coded, terminal error, so one deployment cannot stop the agent.
    throw new RenderError(
      'MOORING_E_RENDER_INVALID',
      '',
      `the deployment could not be rendered: ${String(err)}`,
    );
  }
}

function renderUnchecked({ deployment, revision, settings }: RenderInput): RenderResult {
  const namespace = deployment.source_config?.listener_config?.k8s_namespace;
  if (!namespace)
    throw new RenderError('MOORING_E_RENDER_INVALID', NAMESPACE_FIELD, `${NAMESPACE_FIELD} is not set`);
  if (!isDnsLabel(namespace)) {
    throw new RenderError(
      'MOORING_E_RENDER_INVALID',
      NAMESPACE_FIELD,
      `${NAMESPACE_FIELD} "${namespace}" is not a DNS-1123 label`,
    );
  }
  // A namespace bound to another tenant is refused before anything else is looked at.
  checkTenant(deployment, namespace, settings.references);
  if (!isDnsSubdomain(settings.clusterDomain)) {
    throw new RenderError(
      'MOORING_E_RENDER_INVALID',
      'settings.clusterDomain',
      `settings.clusterDomain "${settings.clusterDomain}" is not a DNS name`,
    );
  }
  const image = revision?.source_revision_config?.image_uri || deployment.source_revision_config?.image_uri;
  if (!image) {
    throw new RenderError(
      'MOORING_E_RENDER_NO_IMAGE',
      'source_revision_config.image_uri',
      'source_revision_config.image_uri is not set on the revision or the deployment',
    );
  }
  const spec = deployment.source_config?.resource_spec ?? {};
  const userLabels = checkUserLabels(spec.labels);
  // Labels go on every pod (the datastores' too), as annotations do (checked in podParts).
  checkMetadataKeys('labels', userLabels, settings.policy.podMetadata);
  const baseName = baseNameOf(deployment.name);
  const secretNames = checkSecrets(deployment.secrets);
  const names = objectNames(baseName);
  const custom = customDatastores(deployment, secretNames, names.env);
  const ctx: RenderContext = {
    deployment,
    spec,
    settings,
    namespace,
    names,
    labels: {
      listenerId: checkLabelValue('settings.listenerId', 'the listener id', settings.listenerId),
      deploymentId: checkLabelValue('id', 'the deployment id', deployment.id),
      baseName,
      userLabels,
    },
    revisionId: revision?.id ?? deployment.latest_revision_id ?? deployment.active_revision_id ?? '',
    image,
    scaledToZero: deployment.status === 'UNUSED',
    pod: podParts(spec, image, settings, baseName),
    bundledRedis: custom.redis === undefined,
    bundledPostgres: custom.postgres === undefined,
    custom,
    secretNames,
  };
  const references = checkSecretReferences(ctx);
  checkReferences(ctx);
  const objects = [
    renderEnvSecret(ctx),
    ...renderPostgres(ctx),
    ...renderRedis(ctx),
    ...renderApiServer(ctx, references),
    ...renderWorkers(ctx, references),
    renderNetworkPolicy(ctx),
    ...renderExposure(ctx),
  ].filter((o): o is RenderedObject => o !== undefined);
  checkRenderedReferences(objects, { baseName, namespace, references: settings.references });
  // Whatever built them, no pod that breaks the policy leaves the renderer. Checked in the order
  // the components render in, so a refusal names the same object whatever the apply order.
  enforcePodPolicy(objects, settings.policy, baseName);
  return { namespace, baseName, objects: sortForApply(objects).map(copyPlain) };
}
