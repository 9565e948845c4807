/**
 * Does the cluster equal the desired state? The desired objects come from the renderer (the same
 * function `mooring render` prints) applied to the control plane's final deployments and their
 * latest revisions; the live objects are listed from the sandbox API over HTTPS, by the ownership
 * labels. The comparison is a subset check of the fields we render (the server adds defaults and
 * status; the Postgres credentials Secret gets its generated password and, being create-only,
 * keeps the user's labels of its creation), plus exact sets: every
 * rendered object exists once, and every owned object is one of them (no orphan, no duplicate).
 */
import { Agent, request } from 'undici';
import type { ControlPlaneClient } from '../../../src/control-plane/client.ts';
import type { DeploymentRecord, RevisionRecord } from '../../../src/contract/index.ts';
import { type RenderedObject, type RenderSettings, renderDeployment } from '../../../src/render/index.ts';
import type { KubeApi } from '../../../src/sandbox/server.ts';
import { LABELS } from '../../../src/labels.ts';

const MOORING_LABELS: ReadonlySet<string> = new Set(Object.values(LABELS));

/** The kinds mooring renders (listed here independently of the agent's own table). */
export const OWNED_KINDS = [
  { apiVersion: 'v1', kind: 'Secret', plural: 'secrets' },
  { apiVersion: 'v1', kind: 'Service', plural: 'services' },
  { apiVersion: 'apps/v1', kind: 'Deployment', plural: 'deployments' },
  { apiVersion: 'apps/v1', kind: 'StatefulSet', plural: 'statefulsets' },
  { apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler', plural: 'horizontalpodautoscalers' },
  { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', plural: 'poddisruptionbudgets' },
  { apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', plural: 'networkpolicies' },
] as const;

export const USER_AGENT = 'mooring-reliability-check';

export function idOf(o: { kind: string; metadata: { namespace?: string; name: string } }): string {
  return `${o.kind}/${o.metadata.namespace ?? ''}/${o.metadata.name}`;
}

/** Lists the objects a listener owns, every kind, every namespace (HTTPS, the sandbox's CA). */
export async function listOwned(kube: KubeApi, namespaces: readonly string[], listenerId: string) {
  const dispatcher = new Agent({ connect: { ca: kube.caPem } });
  const selector = encodeURIComponent(
    `app.kubernetes.io/managed-by=mooring,mooring.dev/listener-id=${listenerId}`,
  );
  const out: RenderedObject[] = [];
  try {
    for (const ns of namespaces) {
      for (const k of OWNED_KINDS) {
        const prefix = k.apiVersion === 'v1' ? '/api/v1' : `/apis/${k.apiVersion}`;
        const res = await request(
          `${kube.url}${prefix}/namespaces/${ns}/${k.plural}?labelSelector=${selector}`,
          {
            dispatcher,
            headers: { authorization: 'Bearer reliability', 'user-agent': USER_AGENT },
          },
        );
        const body = (await res.body.json()) as { items?: RenderedObject[] };
        if (res.statusCode !== 200) throw new Error(`list ${k.plural} in ${ns}: ${res.statusCode}`);
        for (const item of body.items ?? []) out.push({ ...item, apiVersion: k.apiVersion, kind: k.kind });
      }
    }
  } finally {
    await dispatcher.close();
  }
  return out;
}

/** The final deployments of a listener with their latest revisions (what the agent should run). */
export async function finalDeployments(
  client: ControlPlaneClient,
  listenerId: string,
): Promise<{ deployment: DeploymentRecord; revision: RevisionRecord | undefined }[]> {
  const listing = await client.listAllDeployments({ remote_reconciled: true });
  const ours = listing.items.filter((d) => d.source_config.listener_id === listenerId);
  const out = [];
  for (const deployment of ours) {
    const revision = deployment.latest_revision_id
      ? await client.getRevision(deployment.id, deployment.latest_revision_id)
      : undefined;
    out.push({ deployment, revision });
  }
  return out;
}

/** Why `want` is not a subset of `have` (first difference, as a path), or undefined when it is. */
export function subsetDiff(want: unknown, have: unknown, at = ''): string | undefined {
  if (want === null || typeof want !== 'object') {
    return want === have
      ? undefined
      : `${at || '(root)'}: want ${JSON.stringify(want)}, have ${JSON.stringify(have)}`;
  }
  if (Array.isArray(want)) {
    if (!Array.isArray(have) || have.length !== want.length) {
      return `${at}: want ${want.length} items, have ${Array.isArray(have) ? have.length : typeof have}`;
    }
    for (let i = 0; i < want.length; i++) {
      const d = subsetDiff(want[i], have[i], `${at}[${i}]`);
      if (d) return d;
    }
    return undefined;
  }
  if (have === null || typeof have !== 'object' || Array.isArray(have)) return `${at}: want an object`;
  for (const [k, v] of Object.entries(want as Record<string, unknown>)) {
    const d = subsetDiff(v, (have as Record<string, unknown>)[k], at ? `${at}.${k}` : k);
    if (d) return d;
  }
  return undefined;
}

/** The rendered object as the server would show it: `stringData` folded into base64 `data`. */
function asServerSees(o: RenderedObject): Record<string, unknown> {
  const copy = structuredClone(o) as unknown as Record<string, unknown>;
  if (o.kind === 'Secret' && copy.stringData) {
    const data: Record<string, string> = {};
    for (const [k, v] of Object.entries(copy.stringData as Record<string, string>)) {
      data[k] = Buffer.from(v, 'utf8').toString('base64');
    }
    copy.data = { ...((copy.data as Record<string, string> | undefined) ?? {}), ...data };
    delete copy.stringData;
  }
  const annotations = o.metadata.annotations as Record<string, string> | undefined;
  if (annotations?.['mooring.dev/create-only'] === 'true') {
    // Created once and never written again (by design): it keeps the user's labels of its
    // creation; mooring's own labels never change.
    const meta = copy.metadata as { labels: Record<string, string> };
    meta.labels = Object.fromEntries(Object.entries(meta.labels).filter(([k]) => MOORING_LABELS.has(k)));
  }
  return copy;
}

export interface ClusterReport {
  expected: number;
  live: number;
  missing: string[];
  /** Owned objects no render of a live deployment has (orphans, duplicates under another name). */
  unexpected: string[];
  /** Objects whose rendered fields differ live: id and first difference. */
  different: string[];
  /** Ids of every expected object. */
  expectedIds: Set<string>;
}

/** Compares the live cluster with the render of `items`. */
export async function checkCluster(
  kube: KubeApi,
  namespaces: readonly string[],
  settings: RenderSettings,
  items: readonly { deployment: DeploymentRecord; revision: RevisionRecord | undefined }[],
): Promise<ClusterReport> {
  const expected = new Map<string, RenderedObject>();
  for (const { deployment, revision } of items) {
    for (const o of renderDeployment({ deployment, revision, settings }).objects) {
      const id = idOf(o);
      if (expected.has(id)) throw new Error(`two renders produce ${id}`);
      expected.set(id, o);
    }
  }
  const live = await listOwned(kube, namespaces, settings.listenerId);
  const liveIds = new Map(live.map((o) => [idOf(o), o]));
  const report: ClusterReport = {
    expected: expected.size,
    live: live.length,
    missing: [],
    unexpected: [],
    different: [],
    expectedIds: new Set(expected.keys()),
  };
  for (const [id, want] of expected) {
    const have = liveIds.get(id);
    if (!have) {
      report.missing.push(id);
      continue;
    }
    const d = subsetDiff(asServerSees(want), have);
    if (d) report.different.push(`${id}: ${d}`);
  }
  for (const id of liveIds.keys()) if (!expected.has(id)) report.unexpected.push(id);
  return report;
}

export function converged(r: ClusterReport): boolean {
  return r.missing.length === 0 && r.unexpected.length === 0 && r.different.length === 0;
}

/** A short text of a report, for a failure message. */
export function describeReport(r: ClusterReport): string {
  const head = (xs: string[]) => xs.slice(0, 5).join('; ') + (xs.length > 5 ? ` (+${xs.length - 5})` : '');
  return `expected ${r.expected}, live ${r.live}; missing ${r.missing.length} [${head(r.missing)}]; unexpected ${r.unexpected.length} [${head(r.unexpected)}]; different ${r.different.length} [${head(r.different)}]`;
}

/** GET a sandbox API path over HTTPS (the sandbox's CA); the parsed JSON body. */
export async function kubeGet(kube: KubeApi, path: string): Promise<unknown> {
  const dispatcher = new Agent({ connect: { ca: kube.caPem } });
  try {
    const res = await request(`${kube.url}${path}`, {
      dispatcher,
      headers: { authorization: 'Bearer reliability', 'user-agent': USER_AGENT },
    });
    const body = await res.body.json();
    if (res.statusCode !== 200) throw new Error(`GET ${path}: ${res.statusCode}`);
    return body;
  } finally {
    await dispatcher.close();
  }
}
