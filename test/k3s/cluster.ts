/**
 * k3s in a container for the real-cluster suite: the API server writes an audit log of every
 * request the agent's ServiceAccount makes (so writes are counted by the server itself, whichever
 * process makes them), the agent image is loaded into k3s's containerd, and kubectl runs against
 * it with the admin or a ServiceAccount's kubeconfig.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { K3sContainer, type StartedK3sContainer } from '@testcontainers/k3s';
import { parse, stringify } from 'yaml';
import { toolPath } from '../../scripts/install-tools.ts';

const AUDIT_POLICY = '/etc/mooring-suite/audit-policy.yaml';
const AUDIT_LOG = '/var/log/mooring-suite-audit.log';
const WRITE_VERBS = new Set(['create', 'update', 'patch', 'delete', 'deletecollection']);

/** One request of the audited user, as the API server logged it. */
export interface AuditedRequest {
  verb: string;
  uri: string;
  resource: string;
  namespace: string;
  name: string;
  code: number;
  /** A server-side dry run: validated, never stored. */
  dryRun: boolean;
}

/** Result of a kubectl run. */
export interface KubectlResult {
  status: number;
  stdout: string;
  stderr: string;
}

/** Starts k3s with an audit log of the requests of `auditedUser` (every verb, metadata only). */
export async function startAuditedK3s(image: string, auditedUser: string): Promise<StartedK3sContainer> {
  const policy = {
    apiVersion: 'audit.k8s.io/v1',
    kind: 'Policy',
    omitStages: ['RequestReceived'],
    rules: [{ level: 'Metadata', users: [auditedUser] }, { level: 'None' }],
  };
  return new K3sContainer(image)
    .withCopyContentToContainer([{ content: stringify(policy), target: AUDIT_POLICY }])
    .withCommand([
      'server',
      '--disable=traefik',
      `--kube-apiserver-arg=audit-policy-file=${AUDIT_POLICY}`,
      `--kube-apiserver-arg=audit-log-path=${AUDIT_LOG}`,
      '--kube-apiserver-arg=audit-log-maxsize=500',
    ])
    .start();
}

/**
 * The audited user's completed requests so far, oldest first, but those made by kubectl: the suite
 * itself uses that user's token to ask what its Roles allow (`auth can-i`, a refused GET).
 */
export async function auditedRequests(k3s: StartedK3sContainer): Promise<AuditedRequest[]> {
  const res = await k3s.exec(['cat', AUDIT_LOG]);
  if (res.exitCode !== 0) throw new Error(`reading the audit log failed: ${res.stderr}`);
  return res.stdout
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as Record<string, never>)
    .filter((e) => e['stage'] === 'ResponseComplete' && !String(e['userAgent'] ?? '').startsWith('kubectl/'))
    .map((e) => {
      const ref = (e['objectRef'] ?? {}) as Record<string, string>;
      const uri = String(e['requestURI']);
      return {
        verb: String(e['verb']),
        uri,
        resource: ref['subresource'] ? `${ref['resource']}/${ref['subresource']}` : String(ref['resource']),
        namespace: ref['namespace'] ?? '',
        name: ref['name'] ?? '',
        code: Number((e['responseStatus'] as { code?: number } | undefined)?.code ?? 0),
        dryRun: /[?&]dryRun=All\b/.test(uri),
      };
    });
}

/** The requests that change stored state: write verbs that are not dry runs. */
export function writesOf(requests: AuditedRequest[]): AuditedRequest[] {
  return requests.filter((r) => WRITE_VERBS.has(r.verb) && !r.dryRun);
}

/** One line per request, for failure messages. */
export function describeRequests(requests: AuditedRequest[]): string {
  return requests.map((r) => `${r.verb} ${r.resource} ${r.namespace}/${r.name} → ${r.code}`).join('\n');
}

/**
 * Builds the repository's Dockerfile into `tag` with the package.json version and loads the
 * image into k3s's containerd, so pods run it with imagePullPolicy Never.
 */
export async function buildAndLoadImage(
  k3s: StartedK3sContainer,
  repoRoot: string,
  tag: string,
  version: string,
  work: string,
): Promise<void> {
  // The docker CLI (BuildKit on current engines), as an operator builds it from docs/install.md.
  const built = spawnSync('docker', ['build', '--tag', tag, '--build-arg', `VERSION=${version}`, repoRoot], {
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  if (built.status !== 0) throw new Error(`docker build failed: ${built.stderr.slice(-4000)}`);
  const archive = path.join(work, 'image.tar');
  const saved = spawnSync('docker', ['save', '--output', archive, tag], { encoding: 'utf8' });
  if (saved.status !== 0) throw new Error(`docker save ${tag} failed: ${saved.stderr}`);
  await k3s.copyFilesToContainer([{ source: archive, target: '/tmp/mooring-image.tar' }]);
  const imported = await k3s.exec(['ctr', '-n', 'k8s.io', 'images', 'import', '/tmp/mooring-image.tar']);
  if (imported.exitCode !== 0) throw new Error(`ctr images import failed: ${imported.output}`);
}

/** kubectl with a kubeconfig; HOME is the suite's work directory (no user cache). */
export function kubectl(kubeconfig: string, work: string, args: string[], input?: string): KubectlResult {
  const res = spawnSync(toolPath('kubectl'), ['--kubeconfig', kubeconfig, ...args], {
    encoding: 'utf8',
    input,
    env: { PATH: process.env.PATH ?? '', HOME: work },
    // Long enough for `kubectl wait` and `rollout status` with their own timeouts.
    timeout: 600_000,
  });
  return { status: res.status ?? -1, stdout: res.stdout ?? '', stderr: res.stderr ?? '' };
}

/** kubectl that throws with its stderr when it fails; resolves to stdout. */
export function mustKubectl(kubeconfig: string, work: string, args: string[], input?: string): string {
  const res = kubectl(kubeconfig, work, args, input);
  if (res.status !== 0) throw new Error(`kubectl ${args.join(' ')} failed: ${res.stderr}`);
  return res.stdout;
}

/** A kubeconfig file for the same cluster that authenticates with `token` only. */
export function tokenKubeconfig(adminKubeconfig: string, token: string, file: string): string {
  const admin = parse(adminKubeconfig) as { clusters: Array<{ cluster: Record<string, unknown> }> };
  writeFileSync(
    file,
    stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'k3s', cluster: admin.clusters[0]!.cluster }],
      users: [{ name: 'sa', user: { token } }],
      contexts: [{ name: 'sa', context: { cluster: 'k3s', user: 'sa' } }],
      'current-context': 'sa',
    }),
  );
  return file;
}

/** `kubectl port-forward` to `port` of `target` (svc/NAME) from a free loopback port; resolves with its URL. */
export async function portForward(
  kubeconfig: string,
  work: string,
  namespace: string,
  target: string,
  port: number,
): Promise<{ url: string; process: ChildProcess }> {
  const child = spawn(
    toolPath('kubectl'),
    [
      '--kubeconfig',
      kubeconfig,
      'port-forward',
      '--address',
      '127.0.0.1',
      '-n',
      namespace,
      target,
      `:${port}`,
    ],
    { env: { PATH: process.env.PATH ?? '', HOME: work }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const url = await new Promise<string>((resolve, reject) => {
    let seen = '';
    const timer = setTimeout(() => reject(new Error(`port-forward ${target}: ${seen}`)), 60_000);
    child.stdout?.on('data', (d: Buffer) => {
      seen += d.toString();
      const port = /Forwarding from 127\.0\.0\.1:(\d+)/.exec(seen)?.[1];
      if (port) {
        clearTimeout(timer);
        resolve(`http://127.0.0.1:${port}`);
      }
    });
    child.stderr?.on('data', (d: Buffer) => {
      seen += d.toString();
    });
    child.on('exit', (code) => reject(new Error(`port-forward ${target} exited (${code}): ${seen}`)));
  });
  return { url, process: child };
}
