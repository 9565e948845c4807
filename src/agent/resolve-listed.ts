/**
 * A poll's records resolved to their desired states, in listing order. Those that need no read
 * (every one on an idle poll: their revisions are cached or known to the restart memo) are
 * resolved at once, without a promise each; the others a few at a time, each handed on as soon as
 * its revision is in. One handed on early (early-changes.ts) is taken as it was.
 */
import pMap from 'p-map';
import type { DeploymentRecord } from '../contract/index.ts';
import type { Refusal } from '../reconcile/collisions.ts';
import type { DesiredResolver } from '../reconcile/desired-resolver.ts';
import type { EarlyChanges } from './early-changes.ts';
import type { DesiredDeployment } from './poll-cycle.ts';

export interface ListedRecords {
  mine: readonly DeploymentRecord[];
  unsupported: ReadonlyMap<string, string>;
  collided: ReadonlyMap<string, Refusal>;
}

export async function resolveListed(
  { mine, unsupported, collided }: ListedRecords,
  resolver: Pick<DesiredResolver, 'resolve' | 'resolveHeld'>,
  early: Pick<EarlyChanges, 'handed'>,
  /** Hands one resolved here on (not one handed on early). */
  handOn: (d: DesiredDeployment) => void,
  concurrency: number,
): Promise<DesiredDeployment[]> {
  const deployments: DesiredDeployment[] = new Array(mine.length);
  const waits: { i: number; early?: Promise<DesiredDeployment> }[] = [];
  mine.forEach((deployment, i) => {
    const reason = unsupported.get(deployment.id);
    const collision = collided.get(deployment.id);
    const handed = early.handed(deployment, reason, collision);
    const d = handed ? undefined : resolver.resolveHeld(deployment, reason, collision);
    if (d === undefined) {
      waits.push(handed ? { i, early: handed } : { i });
      return;
    }
    handOn(d);
    deployments[i] = d;
  });
  await pMap(
    waits,
    async ({ i, early: handed }) => {
      if (handed) {
        deployments[i] = await handed;
        return;
      }
      const deployment = mine[i] as DeploymentRecord;
      const id = deployment.id;
      const d = await resolver.resolve(deployment, unsupported.get(id), collided.get(id));
      handOn(d);
      deployments[i] = d;
    },
    { concurrency },
  );
  return deployments;
}
