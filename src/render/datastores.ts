import type { DeploymentRecord } from '../contract/index.ts';
import { POSTGRES_URI_CUSTOM, REDIS_URI_CUSTOM } from './defaults.ts';
import { RenderError } from './errors.ts';

/** Where a brought datastore's URI is read from: a Secret and key. */
export interface DatastoreUri {
  secretName: string;
  key: string;
}

/** The datastores a deployment brings itself; a member absent: that one is bundled. */
export interface CustomDatastores {
  postgres?: DatastoreUri | undefined;
  redis?: DatastoreUri | undefined;
}

/**
 * A deployment brings its own Postgres or Redis by `POSTGRES_URI_CUSTOM` / `REDIS_URI_CUSTOM`,
 * either in `secrets` (read from its `b-env` Secret) or in `secret_references` (read from the
 * Secret and key it names). Both routes for the same one is ambiguous and refused.
 */
export function customDatastores(
  deployment: Pick<DeploymentRecord, 'secret_references'>,
  secretNames: ReadonlySet<string>,
  envSecret: string,
): CustomDatastores {
  const refs = deployment.secret_references ?? [];
  const one = (key: string): DatastoreUri | undefined => {
    const i = refs.findIndex((r) => r.name === key);
    const ref = refs[i];
    if (ref && secretNames.has(key)) {
      const field = `secret_references[${i}].name`;
      throw new RenderError(
        'MOORING_E_RENDER_INVALID',
        field,
        `${field} "${key}" is also in secrets: bring each datastore by one route`,
      );
    }
    if (ref) return { secretName: ref.secret_name, key: ref.secret_key };
    return secretNames.has(key) ? { secretName: envSecret, key } : undefined;
  };
  return { postgres: one(POSTGRES_URI_CUSTOM), redis: one(REDIS_URI_CUSTOM) };
}
