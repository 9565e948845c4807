import { z } from 'zod';
import {
  DEPLOYMENT_STATUSES,
  DEPLOYMENT_TYPES,
  REVISION_SOURCES,
  REVISION_STATUSES,
  SOURCES,
} from './enums.ts';
import type { Builders } from './mode.ts';
import { resourceSpecSchemas } from './resource-spec.ts';

/** Deployment (2.5), SourceConfig (2.6), SourceRevisionConfig (2.7), Revision (2.9) and request bodies. */
export function deploymentSchemas(b: Builders) {
  const spec = resourceSpecSchemas(b);

  const Secret = b.obj({ name: z.string().min(1), value: z.string() });
  /**
   * A secret as a deployment record carries it: the interface does not promise that values are
   * returned, so a record whose secrets lack them still parses; the agent refuses that one
   * deployment (it cannot render it), not the listing.
   */
  const RecordSecret = b.obj({ name: z.string().min(1), value: z.string().optional() });
  const SecretReference = b.obj({
    name: z.string().min(1),
    secret_name: z.string().min(1),
    secret_key: z.string().min(1),
  });

  const SourceConfig = b.obj({
    integration_id: b.uuid().nullish(),
    repo_url: z.string().nullish(),
    deployment_type: b.en(DEPLOYMENT_TYPES).nullish(),
    build_on_push: z.boolean().nullish(),
    custom_url: z.string().nullish(),
    resource_spec: spec.ResourceSpec.nullish(),
    listener_id: b.uuid().nullish(),
    listener_config: b.obj({ k8s_namespace: z.string().nullish() }).nullish(),
    install_command: z.string().nullish(),
    build_command: z.string().nullish(),
  });

  const revisionConfigShape = {
    repo_ref: z.string().nullish(),
    graph_config_path: z.string().nullish(),
    image_uri: z.string().nullish(),
    source_tarball_path: z.string().nullish(),
  };
  /** As in responses: includes repo_commit_sha. */
  const SourceRevisionConfig = b.obj({ ...revisionConfigShape, repo_commit_sha: z.string().nullish() });
  /** As in PATCH/POST bodies: repo_commit_sha is absent (4.7). */
  const SourceRevisionConfigInput = b.obj(revisionConfigShape);

  const Deployment = b.obj({
    name: z.string().min(1),
    source: b.en(SOURCES),
    source_config: SourceConfig,
    source_revision_config: SourceRevisionConfig,
    secrets: z.array(RecordSecret),
    id: b.uuid(),
    tenant_id: b.uuid(),
    created_at: b.dateTime(),
    updated_at: b.dateTime(),
    status: b.en(DEPLOYMENT_STATUSES),
    latest_revision_id: b.uuid().nullable(),
    active_revision_id: b.uuid().nullable(),
    secret_references: z.array(SecretReference).nullish(),
    image_version: z.string().nullish(),
  });

  const Revision = b.obj({
    id: b.uuid(),
    created_at: b.dateTime(),
    updated_at: b.dateTime(),
    status: b.en(REVISION_STATUSES),
    source: b.en(SOURCES),
    source_revision_config: SourceRevisionConfig,
  });

  /** POST /v2/deployments (the interface leaves it "not shown"; docs/control-plane.md decides). */
  const DeploymentCreate = b.obj({
    name: z.string().min(1).max(253),
    source: b.en(SOURCES),
    source_config: SourceConfig.nullish(),
    source_revision_config: SourceRevisionConfigInput.nullish(),
    secrets: z.array(Secret).nullish(),
    secret_references: z.array(SecretReference).nullish(),
  });

  /** PATCH /v2/deployments/{id} (4.7): every member optional or nullable. */
  const DeploymentPatch = b.obj({
    revision_source: b.en(REVISION_SOURCES).nullish(),
    source_config: SourceConfig.nullish(),
    source_revision_config: SourceRevisionConfigInput.nullish(),
    secrets: z.array(Secret).nullish(),
    secret_references: z.array(SecretReference).nullish(),
  });

  return {
    ...spec,
    Secret,
    SecretReference,
    SourceConfig,
    SourceRevisionConfig,
    SourceRevisionConfigInput,
    Deployment,
    Revision,
    DeploymentCreate,
    DeploymentPatch,
  };
}
