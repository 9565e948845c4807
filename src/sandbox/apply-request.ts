/** Server-side apply (PATCH `application/apply-patch+yaml`), creating the object when absent. */
import { parse as parseYaml } from 'yaml';
import { conflictStatus, serverSideApply } from './apply/index.ts';
import type { Cluster } from './cluster.ts';
import { applyDefaults } from './defaults.ts';
import { assignNodePorts } from './node-ports.ts';
import { canonicalizeQuantities } from './quantities.ts';
import { handleUnknownFields } from './fields.ts';
import type { ResourceType } from './resources.ts';
import { ApiError, badRequest, conflict, invalid, notFound, STALE } from './status.ts';
import type { KubeObject, StoredObject } from './types.ts';
import {
  applyFailure,
  asObject,
  checkNamespace,
  checkTypeMeta,
  initialise,
  typed,
  validateOrThrow,
  type WriteResult,
} from './write-common.ts';
import type { WriteOptions } from './write-options.ts';
import { finish } from './writes.ts';

function parseApplyBody(text: string): unknown {
  const trimmed = text.trimStart();
  if (trimmed.startsWith('{')) {
    try {
      return JSON.parse(trimmed);
    } catch {
      // fall through: YAML flow mappings are JSON-like but not JSON
    }
  }
  try {
    return parseYaml(text);
  } catch (error) {
    throw badRequest(`error decoding YAML: ${(error as Error).message.split('\n')[0]}`);
  }
}

/** PATCH with `application/apply-patch+yaml`: server-side apply, creating the object if absent. */
export function apply(
  cluster: Cluster,
  type: ResourceType,
  namespace: string | undefined,
  name: string,
  text: string,
  options: WriteOptions,
): WriteResult {
  if (!options.fieldManager) {
    throw invalid({ group: 'meta.k8s.io', kind: 'PatchOptions' }, '', [
      {
        reason: 'FieldValueRequired',
        message: 'Required value: is required for apply patch',
        field: 'fieldManager',
      },
    ]);
  }
  const applied = asObject(parseApplyBody(text), type.kind);
  if (applied.apiVersion === undefined || applied.kind === undefined) {
    throw badRequest("Object 'Kind' is missing in the apply patch");
  }
  checkTypeMeta(type, applied);
  checkNamespace(type, applied, namespace);
  const meta = (applied.metadata ?? {}) as Record<string, unknown>;
  if (meta.name !== undefined && meta.name !== name) {
    throw badRequest(
      `the name of the object (${String(meta.name)}) does not match the name on the URL (${name})`,
    );
  }
  const id = type.namespaced ? `${namespace}/${name}` : name;
  handleUnknownFields(type, applied, options, 'apply', id);
  if (type.kind === 'Secret') stringDataToData(applied);
  applied.metadata = { ...meta, name, ...(type.namespaced ? { namespace } : {}) };
  if (type.namespaced && namespace !== undefined) cluster.requireNamespace(namespace);
  const live = cluster.store.get(type, namespace ?? '', name);
  if (!live && type.namespaced && namespace !== undefined)
    cluster.requireActiveNamespace(type, namespace, name);
  // A resourceVersion in the applied configuration is a precondition, as for update.
  const rv = meta.resourceVersion;
  if (typeof rv === 'string' && rv !== '' && rv !== live?.metadata.resourceVersion) {
    throw live ? conflict(type, name, STALE) : notFound(type, name);
  }
  delete (applied.metadata as Record<string, unknown>).resourceVersion;
  let outcome: ReturnType<typeof serverSideApply>;
  try {
    outcome = serverSideApply({
      live,
      applied: applied as StoredObject,
      manager: options.fieldManager,
      force: options.force,
      now: cluster.now(),
    });
  } catch (error) {
    throw applyFailure(error);
  }
  if (!outcome.ok) {
    const status = conflictStatus(outcome.conflicts);
    throw new ApiError(409, 'Conflict', status.message, {
      causes: status.causes.map((c) => ({ reason: c.type, message: c.message, field: c.field })),
    });
  }
  const next = typed(type, outcome.object as KubeObject);
  if (live) return finish(cluster, type, live, next, options, { applied: true });
  initialise(cluster, type, next, namespace);
  canonicalizeQuantities(next);
  applyDefaults(next, cluster);
  validateOrThrow(type, next, undefined);
  assignNodePorts(cluster, type, next, undefined);
  cluster.serviceIPs.check(type, next);
  if (options.dryRun) return { code: 201, body: next };
  return { code: 201, body: cluster.commit(type, next, undefined) };
}

/** `stringData` is write-only: the server folds it into `data` (base64). */
function stringDataToData(secret: KubeObject): void {
  const stringData = secret.stringData;
  if (!stringData || typeof stringData !== 'object') return;
  const data = { ...((secret.data ?? {}) as Record<string, unknown>) };
  for (const [key, value] of Object.entries(stringData as Record<string, unknown>)) {
    data[key] = Buffer.from(String(value), 'utf8').toString('base64');
  }
  secret.data = data;
  delete secret.stringData;
}
