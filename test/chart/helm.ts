/**
 * Runs the real helm binary on the chart and parses what it prints. Shared by the chart tests.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseAllDocuments, stringify } from 'yaml';
import { toolPath } from '../../scripts/install-tools.ts';
import { chartDir } from '../../scripts/render-deploy.ts';

/** A rendered Kubernetes object, as plain data. */
export interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; [k: string]: unknown };
  [k: string]: unknown;
}

export interface HelmResult {
  status: number;
  stdout: string;
  stderr: string;
}

/** The chart's value sets of `ci/`, keyed by file name without `-values.yaml`. */
export function ciValueSets(): Map<string, string> {
  const dir = path.join(chartDir, 'ci');
  const sets = new Map<string, string>();
  for (const file of readdirSync(dir).sort()) {
    if (file.endsWith('-values.yaml')) sets.set(file.replace(/-values\.yaml$/, ''), path.join(dir, file));
  }
  return sets;
}

export const RELEASE = { name: 'mooring', namespace: 'mooring' } as const;

/**
 * Runs `helm <args>` with the given value files and inline values objects (written to a
 * temporary file, so no `--set` string parsing gets in the way).
 */
export function helm(args: string[], values: Array<string | Record<string, unknown>> = []): HelmResult {
  const work = mkdtempSync(path.join(tmpdir(), 'mooring-chart-'));
  try {
    const valueArgs = values.flatMap((v, i) => {
      if (typeof v === 'string') return ['--values', v];
      const file = path.join(work, `values-${i}.yaml`);
      writeFileSync(file, stringify(v));
      return ['--values', file];
    });
    const res = spawnSync(toolPath('helm'), [...args, ...valueArgs], {
      encoding: 'utf8',
      // Keep helm away from the user's repositories and caches.
      env: {
        PATH: process.env.PATH ?? '',
        HELM_CACHE_HOME: path.join(work, 'cache'),
        HELM_CONFIG_HOME: path.join(work, 'config'),
        HELM_DATA_HOME: path.join(work, 'data'),
      },
    });
    return { status: res.status ?? -1, stdout: res.stdout, stderr: res.stderr };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** `helm lint --strict` of the chart with these values. */
export function lint(values: Array<string | Record<string, unknown>>): HelmResult {
  return helm(['lint', '--strict', chartDir, '--namespace', RELEASE.namespace], values);
}

/** `helm template` of the chart with these values; throws with helm's stderr when it fails. */
export function template(values: Array<string | Record<string, unknown>>): KubeObject[] {
  const res = templateRaw(values);
  if (res.status !== 0) throw new Error(`helm template failed (${res.status}):\n${res.stderr}`);
  return parseObjects(res.stdout);
}

/** A client-side dry run of `helm install` (the NOTES are at the end of its output); the Secret hidden. */
export function installDryRun(values: Array<string | Record<string, unknown>>): HelmResult {
  return helm(
    [
      'install',
      RELEASE.name,
      chartDir,
      '--namespace',
      RELEASE.namespace,
      '--dry-run=client',
      '--hide-secret',
    ],
    values,
  );
}

export function templateRaw(values: Array<string | Record<string, unknown>>): HelmResult {
  return helm(['template', RELEASE.name, chartDir, '--namespace', RELEASE.namespace], values);
}

/** Parses a multi-document YAML stream into objects, skipping empty documents; rejects bad YAML. */
export function parseObjects(text: string): KubeObject[] {
  const objects: KubeObject[] = [];
  for (const doc of parseAllDocuments(text)) {
    if (doc.errors.length > 0) throw new Error(`bad YAML from helm: ${doc.errors[0]?.message}`);
    const value = doc.toJS() as KubeObject | null;
    if (value) objects.push(value);
  }
  return objects;
}

/** The one object of this kind (and name, when given); throws when absent or ambiguous. */
export function only(objects: KubeObject[], kind: string, name?: string): KubeObject {
  const found = objects.filter((o) => o.kind === kind && (name === undefined || o.metadata.name === name));
  if (found.length !== 1)
    throw new Error(`expected one ${kind}${name ? `/${name}` : ''}, found ${found.length}`);
  return found[0]!;
}

/** The files the pod's ConfigMap volumes put in the agent container: mount path → content. */
export function mountedFiles(objects: KubeObject[]): Map<string, string> {
  // biome-ignore lint/suspicious/noExplicitAny: reading a rendered manifest
  const pod = (only(objects, 'Deployment').spec as any).template.spec;
  const files = new Map<string, string>();
  for (const mount of pod.containers[0].volumeMounts as { name: string; mountPath: string }[]) {
    const volume = (pod.volumes as { name: string; configMap?: { name: string } }[]).find(
      (v) => v.name === mount.name,
    );
    if (!volume?.configMap) continue;
    // A ConfigMap the release does not render (the operator's CA bundle) is not the chart's to read.
    const name = volume.configMap.name;
    if (!objects.some((o) => o.kind === 'ConfigMap' && o.metadata?.name === name)) continue;
    const cm = only(objects, 'ConfigMap', name) as unknown as {
      data: Record<string, string>;
    };
    for (const [key, text] of Object.entries(cm.data)) files.set(`${mount.mountPath}/${key}`, text);
  }
  return files;
}
