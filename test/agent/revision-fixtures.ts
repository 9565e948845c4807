/**
 * One deployment with a latest and an active revision, and revisions of any status: what the
 * tests of the revision choice (poller, resolver) read.
 */
import type { DeploymentRecord, RevisionRecord } from '../../src/contract/index.ts';

export const D1 = 'aaaaaaaa-0000-4000-8000-000000000001';
export const R_ACTIVE = 'bbbbbbbb-0000-4000-8000-000000000001';
export const R_LATEST = 'bbbbbbbb-0000-4000-8000-000000000002';
const T = '2026-01-01T00:00:00Z';

/** Deployment `web` (D1) of `listenerId`, latest R_LATEST, active R_ACTIVE. */
export const deploymentRecord = (listenerId: string): DeploymentRecord =>
  ({
    id: D1,
    name: 'web',
    source: 'external_docker',
    source_config: { listener_id: listenerId, listener_config: { k8s_namespace: 'apps' } },
    source_revision_config: { image_uri: 'img:1' },
    secrets: [],
    created_at: T,
    updated_at: T,
    status: 'READY',
    latest_revision_id: R_LATEST,
    active_revision_id: R_ACTIVE,
  }) as unknown as DeploymentRecord;

/** Revision `id` in `status`, its image named after it. */
export const revisionRecord = (id: string, status: string): RevisionRecord =>
  ({
    id,
    created_at: T,
    updated_at: T,
    status,
    source: 'external_docker',
    source_revision_config: { image_uri: `img:${id}` },
  }) as unknown as RevisionRecord;
