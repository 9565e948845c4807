import type {
  Deployment,
  DeploymentPatch,
  Revision,
  RevisionStatus,
  Secret,
  SourceConfig,
  SourceRevisionConfig,
} from '../../contract/index.ts';

/**
 * The revision rules of the reference control plane (interface 3.2 and docs/control-plane.md), as pure
 * functions: what a PATCH changes, and whether it makes a new revision.
 */

/** JSON with object keys sorted and null/absent members dropped: equal values, equal text. */
export function canonical(value: unknown): string {
  return JSON.stringify(sortValue(value));
}

function sortValue(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortValue);
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) {
      const v = (value as Record<string, unknown>)[key];
      if (v !== null && v !== undefined) out[key] = sortValue(v);
    }
    return out;
  }
  return value;
}

/** The revision-relevant part of a SourceRevisionConfig: repo_commit_sha is the server's, not the caller's. */
export function normalizeRevisionConfig(config: SourceRevisionConfig | null | undefined): string {
  const { repo_commit_sha: _sha, ...rest } = config ?? {};
  return canonical(rest);
}

/** Secrets compare as a set keyed by name: reordering them is not a change. */
export function normalizeSecrets(secrets: readonly Secret[] | null | undefined): string {
  const sorted = [...(secrets ?? [])].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return canonical(sorted.map((s) => ({ name: s.name, value: s.value })));
}

/** The image tag of an image reference (`repo/app:1.2.3` gives `1.2.3`); null without one or with a digest only. */
export function imageVersion(imageUri: string | null | undefined): string | null {
  if (!imageUri) return null;
  const withoutDigest = imageUri.split('@')[0]!;
  const lastSlash = withoutDigest.lastIndexOf('/');
  const colon = withoutDigest.lastIndexOf(':');
  return colon > lastSlash ? withoutDigest.slice(colon + 1) || null : null;
}

/**
 * New revisions of `external_docker` deployments start `DEPLOYED`: in the self-hosted flow
 * nothing else would ever report a deploy status, so the revision the agent runs is recorded as
 * deployed when it is created. Other sources start `QUEUED` (a build service would move them on).
 */
export function initialRevisionStatus(source: Deployment['source']): RevisionStatus {
  return source === 'external_docker' ? 'DEPLOYED' : 'QUEUED';
}

/** What a PATCH does to a deployment document. */
export interface PatchOutcome {
  sourceConfig: SourceConfig;
  sourceRevisionConfig: SourceRevisionConfig;
  secrets: Secret[];
  secretReferences: Deployment['secret_references'];
  /** The source of the new revision when one is due, else undefined. */
  newRevisionSource: Deployment['source'] | undefined;
}

/**
 * Applies a PATCH. Top-level members that are absent or null leave the value unchanged;
 * `source_config` and `source_revision_config` merge member by member (a member given replaces
 * the old one, `resource_spec` as a whole); `secrets` and `secret_references` replace the lists.
 * A new revision is due when the revision config, the secrets, or `revision_source` differ from
 * the current ones (compared normalized); a `source_config` change never makes one.
 */
export function applyPatch(
  current: Deployment,
  latest: Revision | undefined,
  patch: DeploymentPatch,
): PatchOutcome {
  const sourceConfig = patch.source_config
    ? { ...current.source_config, ...patch.source_config }
    : current.source_config;

  const { repo_commit_sha: _sha, ...currentRevisionConfig } = current.source_revision_config;
  const mergedRevisionConfig = patch.source_revision_config
    ? { ...currentRevisionConfig, ...patch.source_revision_config }
    : currentRevisionConfig;
  const revisionConfigChanged =
    normalizeRevisionConfig(mergedRevisionConfig) !== normalizeRevisionConfig(current.source_revision_config);

  // The reference control plane stores every value it was given (a value is required on input).
  const secrets = patch.secrets ?? (current.secrets as Secret[]);
  const secretsChanged = normalizeSecrets(secrets) !== normalizeSecrets(current.secrets as Secret[]);

  // `revision_source` overrides the source of this revision only; omitted, the deployment's applies.
  const requestedSource = patch.revision_source ?? undefined;
  const sourceChanged =
    requestedSource !== undefined && requestedSource !== (latest?.source ?? current.source);

  const due = revisionConfigChanged || secretsChanged || sourceChanged;
  return {
    sourceConfig,
    // repo_commit_sha belongs to a built revision; a new revision has none until something builds it.
    sourceRevisionConfig: due
      ? { ...mergedRevisionConfig, repo_commit_sha: null }
      : current.source_revision_config,
    secrets,
    secretReferences: patch.secret_references ?? current.secret_references ?? null,
    newRevisionSource: due ? (requestedSource ?? current.source) : undefined,
  };
}
