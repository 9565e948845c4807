/**
 * The fencing verdict of a sharded chaos run: every write of a deployment's object checked against
 * the terms of its shard's Lease, and every namespace patch against shard 0's.
 */
import { shardOf } from '../../../src/agent/shards.ts';
import type { DeploymentRecord, RevisionRecord } from '../../../src/contract/index.ts';
import type { ControlPlaneClient } from '../../../src/control-plane/client.ts';
import { type RenderSettings, renderDeployment } from '../../../src/render/index.ts';
import type { RequestRecord } from '../../../src/sandbox/server.ts';
import type { LeaseTerms } from '../../support/lease-terms.ts';
import {
  checkFencing,
  DEPLOYMENT_KINDS,
  type DeploymentOfObject,
  type FencingReport,
  renderOwners,
  storedOrRendered,
} from '../../support/shard-fencing.ts';
import { objectKey, writesByObject } from '../../support/writers.ts';

/** The Lease name the chaos replicas run with (the agent's default). */
export const CHAOS_LEASE = 'mooring-leader';

export interface ShardFencing {
  objects: FencingReport;
  namespaces: FencingReport;
  /** Terms per shard Lease over the run (more than one: the shard changed hands). */
  termsPerShard: Record<string, number>;
  /** Objects written but never stored, put down to their deployment by the renders. */
  neverStored: string[];
}

/**
 * Every object any version of the deployments renders to, with its deployment's id: each record the
 * run created or patched, with each revision of its deployment (`renderOwners`: an object two
 * deployments render belongs to neither). A write that failed before anything was stored (an object
 * a later change dropped, say) is put down to its deployment from what the agent was told to write.
 */
export async function renderedOwners(
  client: ControlPlaneClient,
  settings: RenderSettings,
  versions: readonly DeploymentRecord[],
): Promise<Map<string, string>> {
  const revisions = new Map<string, RevisionRecord[]>();
  for (const id of new Set(versions.map((v) => v.id))) {
    const list: RevisionRecord[] = [];
    for await (const page of client.listRevisions(id)) list.push(...page.items);
    revisions.set(id, list);
  }
  const pairs: [string, string][] = [];
  for (const deployment of versions)
    for (const revision of revisions.get(deployment.id) ?? [])
      for (const o of renderDeployment({ deployment, revision, settings }).objects)
        pairs.push([objectKey(o.kind, o.metadata.namespace, o.metadata.name), deployment.id]);
  return renderOwners(pairs);
}

export function shardFencing(
  records: readonly RequestRecord[],
  stored: Pick<DeploymentOfObject, 'get'>,
  rendered: ReadonlyMap<string, string>,
  terms: LeaseTerms,
  shards: number,
): ShardFencing {
  const owners = storedOrRendered(stored, rendered);
  const kinds = new Set<string>(DEPLOYMENT_KINDS.map((k) => k.kind));
  const lease = (i: number) => `${CHAOS_LEASE}-${i}`;
  const termsPerShard: Record<string, number> = {};
  for (let i = 0; i < shards; i++) termsPerShard[lease(i)] = terms.terms(lease(i)).length;
  return {
    objects: checkFencing(writesByObject(records, kinds), owners, terms, (id) => lease(shardOf(id, shards))),
    namespaces: checkFencing(
      writesByObject(records, new Set(['Namespace'])),
      { get: () => 'namespace' },
      terms,
      () => lease(0),
    ),
    termsPerShard,
    neverStored: [...owners.neverStored],
  };
}
