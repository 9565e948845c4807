import type { SQLInputValue } from 'node:sqlite';
import type { DeploymentListQuery, RevisionListQuery } from '../../contract/index.ts';
import { placeholders } from './store.ts';

/** The WHERE terms of a list query and their parameters, in order. */
export interface Filters {
  where: string[];
  params: SQLInputValue[];
}

/** The filters of a deployment listing (and the tenant's own rows only, with a tenant). */
export function deploymentFilters(q: DeploymentListQuery, tenantId: string | undefined): Filters {
  const where: string[] = [];
  const params: SQLInputValue[] = [];
  const eq = (column: string, value: SQLInputValue | undefined) => {
    if (value === undefined) return;
    where.push(`${column} = ?`);
    params.push(value);
  };
  eq('tenant_id', tenantId);
  eq('name', q.name);
  eq('status', q.status);
  eq('remote_reconciled', q.remote_reconciled === undefined ? undefined : q.remote_reconciled ? 1 : 0);
  eq('image_version', q.image_version);
  eq('deployment_type', q.deployment_type);
  eq('listener_id', q.agent_id);
  if (q.name_contains !== undefined) {
    where.push('instr(name, ?) > 0');
    params.push(q.name_contains);
  }
  if (q.deployment_ids) {
    where.push(`id IN (${placeholders(q.deployment_ids.length)})`);
    params.push(...q.deployment_ids);
  }
  if (q.tag_value_ids) {
    where.push(
      `id IN (SELECT deployment_id FROM deployment_tags WHERE tag_value_id IN (${placeholders(q.tag_value_ids.length)}))`,
    );
    params.push(...q.tag_value_ids);
  }
  return { where, params };
}

/** The filters of a listing of one deployment's revisions. */
export function revisionFilters(deploymentId: string, q: RevisionListQuery): Filters {
  const where = ['deployment_id = ?'];
  const params: SQLInputValue[] = [deploymentId];
  if (q.status) {
    where.push(`status IN (${placeholders(q.status.length)})`);
    params.push(...q.status);
  }
  if (q.remote_reconciled !== undefined) {
    where.push('remote_reconciled = ?');
    params.push(q.remote_reconciled ? 1 : 0);
  }
  return { where, params };
}
