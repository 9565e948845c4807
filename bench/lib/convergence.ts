/**
 * When is the cluster converged? When every object the renderer makes for every deployment exists
 * in the sandbox. The expected set comes from the same renderer the agent uses; the check reads
 * the sandbox's store directly (no HTTP, so it adds no requests to the log being measured).
 */
import type { DeploymentRecord, RevisionRecord } from '../../src/contract/index.ts';
import { type RenderedObject, type RenderSettings, renderDeployment } from '../../src/render/index.ts';
import type { KubeApi } from '../../src/sandbox/server.ts';

/** One object to look for. */
export interface ObjectRef {
  apiVersion: string;
  kind: string;
  namespace: string;
  name: string;
}

export interface RenderedDeployment {
  id: string;
  namespace: string;
  objects: RenderedObject[];
}

/** Renders each deployment at its latest revision (the revision the agent runs). */
export function renderAll(
  items: readonly { deployment: DeploymentRecord; revision?: RevisionRecord | undefined }[],
  settings: RenderSettings,
): RenderedDeployment[] {
  return items.map(({ deployment, revision }) => {
    const result = renderDeployment({ deployment, revision, settings });
    return { id: deployment.id, namespace: result.namespace, objects: result.objects };
  });
}

export function refOf(o: RenderedObject): ObjectRef {
  return { apiVersion: o.apiVersion, kind: o.kind, namespace: o.metadata.namespace, name: o.metadata.name };
}

export interface WaitOptions {
  timeoutMs: number;
  /** Time between checks; default 50 ms. */
  pollMs?: number;
  /** Called after each check with how many objects are still missing. */
  onProgress?: (missing: number) => void;
  /** Gives up early (null) when this returns true, e.g. when the agent has exited. */
  giveUp?: () => boolean;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Resolves with `performance.now()` at the check that found every object present, or null on
 * timeout. A deployment's objects are checked in apply order and the check moves on at the first
 * one missing, so a check costs about one store read per unfinished deployment; the reads copy
 * nothing (`hasObject`), as they run in the sandbox's process while the agent is measured.
 */
export async function waitForObjects(
  api: Pick<KubeApi, 'hasObject'>,
  deployments: readonly (readonly ObjectRef[])[],
  options: WaitOptions,
): Promise<number | null> {
  const pending = deployments.map((refs) => [...refs]).filter((refs) => refs.length > 0);
  const deadline = performance.now() + options.timeoutMs;
  for (;;) {
    let missing = 0;
    for (const refs of pending) {
      while (refs.length > 0) {
        const r = refs[0] as ObjectRef;
        if (!api.hasObject(r.apiVersion, r.kind, r.namespace, r.name)) break;
        refs.shift();
      }
      missing += refs.length;
    }
    const now = performance.now();
    options.onProgress?.(missing);
    if (missing === 0) return now;
    if (now > deadline || options.giveUp?.()) return null;
    for (let i = pending.length - 1; i >= 0; i--) if (pending[i]?.length === 0) pending.splice(i, 1);
    await sleep(options.pollMs ?? 50);
  }
}

/** The images of a Deployment's containers in the sandbox (empty when it does not exist). */
export function containerImages(api: Pick<KubeApi, 'getObject'>, ref: ObjectRef): string[] {
  const o = api.getObject(ref.apiVersion, ref.kind, ref.namespace, ref.name) as
    | { spec?: { template?: { spec?: { containers?: { image?: string }[] } } } }
    | undefined;
  return (o?.spec?.template?.spec?.containers ?? []).map((c) => c.image ?? '');
}

/** Resolves with `performance.now()` once the Deployment runs `image`, or null on timeout. */
export async function waitForImage(
  api: Pick<KubeApi, 'getObject'>,
  ref: ObjectRef,
  image: string,
  options: WaitOptions,
): Promise<number | null> {
  const deadline = performance.now() + options.timeoutMs;
  for (;;) {
    const now = performance.now();
    if (containerImages(api, ref).includes(image)) return now;
    if (now > deadline) return null;
    await sleep(options.pollMs ?? 20);
  }
}
