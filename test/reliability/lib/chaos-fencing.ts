/**
 * The fencing verdict of a sharded chaos run: every write of a deployment's object checked against
 * the terms of its shard's Lease, and every namespace patch against shard 0's.
 */
import { shardOf } from '../../../src/agent/shards.ts';
import type { RequestRecord } from '../../../src/sandbox/server.ts';
import type { LeaseTerms } from '../../support/lease-terms.ts';
import {
  checkFencing,
  DEPLOYMENT_KINDS,
  type DeploymentOfObject,
  type FencingReport,
} from '../../support/shard-fencing.ts';
import { writesByObject } from '../../support/writers.ts';

/** The Lease name the chaos replicas run with (the agent's default). */
export const CHAOS_LEASE = 'mooring-leader';

export interface ShardFencing {
  objects: FencingReport;
  namespaces: FencingReport;
  /** Terms per shard Lease over the run (more than one: the shard changed hands). */
  termsPerShard: Record<string, number>;
}

export function shardFencing(
  records: readonly RequestRecord[],
  owners: DeploymentOfObject,
  terms: LeaseTerms,
  shards: number,
): ShardFencing {
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
  };
}
