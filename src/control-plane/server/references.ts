import type { Deployment, Secret, SourceConfig } from '../../contract/index.ts';
import { HttpError, type ValidationItem } from './errors.ts';
import type { Database } from './store.ts';

/**
 * Rules the schema cannot express, because they need stored state or look across members: the
 * listener must exist, secret names are unique, secret_references belong to external_docker only.
 * All problems are reported together as one 422.
 */
export function checkReferences(
  db: Database,
  source: Deployment['source'],
  sourceConfig: SourceConfig,
  secrets: readonly Secret[] | null | undefined,
  secretReferences: Deployment['secret_references'] | undefined,
): void {
  const items: ValidationItem[] = [];
  const listenerId = sourceConfig.listener_id;
  if (listenerId && !db.sqlite.prepare('SELECT 1 FROM listeners WHERE id = ?').get(listenerId)) {
    items.push({
      loc: ['body', 'source_config', 'listener_id'],
      msg: 'listener not found',
      type: 'value_error',
    });
  }
  const seen = new Set<string>();
  (secrets ?? []).forEach((s, i) => {
    if (seen.has(s.name)) {
      items.push({
        loc: ['body', 'secrets', i, 'name'],
        msg: 'duplicate secret name',
        type: 'value_error',
      });
    }
    seen.add(s.name);
  });
  if (secretReferences && secretReferences.length > 0 && source !== 'external_docker') {
    items.push({
      loc: ['body', 'secret_references'],
      msg: 'secret_references apply only to source external_docker',
      type: 'value_error',
    });
  }
  if (items.length > 0) throw new HttpError(422, items);
}
