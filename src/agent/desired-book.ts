/**
 * What a deployment's desired state brings the redactor (its secret values, and the loader of a
 * revision a poll resolved without reading it) and the status. (What the agent holds per
 * deployment is its record: deployment-record.ts.)
 */
import type { RevisionRecord } from '../contract/index.ts';
import type { Redactor } from '../redact.ts';
import { secretValues } from '../reconcile/steps.ts';
import type { DesiredDeployment } from './poll-cycle.ts';
import type { ObservedDeployment } from './status.ts';

/**
 * The secret values of a deployment's desired state: its record's `secrets[].value`, and those of
 * its revision should the control plane send a revision with `secrets` (the tolerant parse keeps
 * members the interface does not list).
 */
export function secretValuesOf(d: Pick<DesiredDeployment, 'deployment' | 'revision'>): string[] {
  const fromRevision = (d.revision as { secrets?: unknown } | undefined)?.secrets;
  const revisionValues = Array.isArray(fromRevision)
    ? fromRevision.map((s: { value?: unknown }) => s?.value).filter((v): v is string => typeof v === 'string')
    : [];
  return [...secretValues(d.deployment), ...revisionValues];
}

/**
 * What reads `d`'s revision when a poll resolved it without reading it (`pendingRevision`);
 * undefined otherwise. Its secret values are known to the redactor from then on, as those of a
 * revision read at the poll.
 */
export function revisionLoader(
  d: DesiredDeployment,
  load: ((deploymentId: string, revisionId: string) => Promise<RevisionRecord>) | undefined,
  redactor: Pick<Redactor, 'set'> | undefined,
): (() => Promise<RevisionRecord>) | undefined {
  const pending = d.pendingRevision;
  if (pending === undefined || !load) return undefined;
  return async () => {
    const revision = await load(d.deployment.id, pending);
    redactor?.set(d.deployment.id, secretValuesOf({ deployment: d.deployment, revision }));
    return revision;
  };
}

/** What the status shows of `d` (StatusStore.observe). */
export function statusEntryOf({
  deployment,
  revision,
  pendingRevision,
}: DesiredDeployment): ObservedDeployment {
  return {
    id: deployment.id,
    name: deployment.name,
    namespace: deployment.source_config.listener_config?.k8s_namespace ?? null,
    revision: revision?.id ?? pendingRevision ?? deployment.latest_revision_id,
    controlPlaneStatus: String(deployment.status),
  };
}
