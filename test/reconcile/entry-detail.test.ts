/**
 * What a reconcile decides from a change set reads the entries' typed `detail`, never their
 * `note` (free text for people, which may be reworded): a kept volume, an object already
 * terminating, one replaced under its name.
 */
import { describe, expect, it } from 'vitest';
import type { ChangeSetEntry } from '../../src/objects/change-set.ts';
import { keptVolumesMessage } from '../../src/reconcile/steps.ts';

function entry(
  kind: string,
  name: string,
  action: ChangeSetEntry['action'],
  more: Partial<ChangeSetEntry> = {},
) {
  return { id: `${kind}/apps/${name}`, apiVersion: 'v1', kind, namespace: 'apps', name, action, ...more };
}

describe('keptVolumesMessage', () => {
  it('names the kept claims by their detail, whatever their note says (regression: matched the note)', () => {
    const message = keptVolumesMessage({
      dryRun: false,
      entries: [
        entry('StatefulSet', 'db', 'deleted'),
        entry('PersistentVolumeClaim', 'data-db-0', 'skipped', {
          detail: 'volume-kept',
          note: 'kept: reworded',
        }),
        // Skipped for another reason, though its note speaks of a kept volume.
        entry('PersistentVolumeClaim', 'data-db-1', 'skipped', {
          note: 'volume kept (deleteVolumes is off)',
        }),
      ],
    });
    expect(message).toContain('PersistentVolumeClaim/apps/data-db-0');
    expect(message).not.toContain('data-db-1');
  });
});
