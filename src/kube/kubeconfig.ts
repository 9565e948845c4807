/**
 * Where the Kubernetes API is and how to authenticate to it: a kubeconfig (YAML text or a file)
 * or the pod's service account. See docs/adr/0004-thin-kubernetes-client.md for why this is ours
 * and not client-node's KubeConfig (importing that loads the whole generated API).
 *
 * Supported, as kubectl supports them today: the current context's cluster (`server`,
 * `certificate-authority[-data]`, `insecure-skip-tls-verify`, `tls-server-name`, `proxy-url` over
 * http/https) and user (`token`, `tokenFile`, `client-certificate[-data]` + `client-key[-data]`,
 * `username`/`password`, `exec` credential plugins returning a token). Legacy `auth-provider`
 * entries are refused with a clear reason (kubectl dropped them too); so is anything unusable.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { MooringError } from '../errors.ts';
import { parseYaml } from '../lazy-yaml.ts';
import { describeProxy } from '../proxy/from-environment.ts';
import type { ExecConfig } from './exec-credential.ts';

/** Marker for "use the pod's service account token and CA". */
export const IN_CLUSTER = 'in-cluster';

const SERVICE_ACCOUNT_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';

/** TLS settings of the connection to the API server. */
export interface TlsSettings {
  ca?: string | Buffer;
  cert?: string | Buffer;
  key?: string | Buffer;
  rejectUnauthorized: boolean;
  servername?: string;
}

/** How requests authenticate (besides a client certificate, which is TLS). */
export type Credentials =
  | { type: 'none' }
  | { type: 'token'; token: string }
  /** Re-read from the file (projected service account tokens rotate). */
  | { type: 'token-file'; file: string }
  | { type: 'basic'; username: string; password: string }
  | { type: 'exec'; exec: ExecConfig };

/** Everything needed to talk to one cluster as one user. */
export interface ClusterAccess {
  server: string;
  tls: TlsSettings;
  credentials: Credentials;
  proxyUrl?: string;
  /**
   * The pod's service account: the API server is reached directly whatever HTTPS_PROXY says (a
   * corporate proxy cannot route to a cluster's service network); a kubeconfig can name a proxy.
   */
  inCluster?: boolean;
  /** The context's namespace, when it names one. */
  namespace?: string;
}

const Cluster = z
  .object({
    server: z.string().min(1),
    'certificate-authority': z.string().optional(),
    'certificate-authority-data': z.string().optional(),
    'insecure-skip-tls-verify': z.boolean().optional(),
    'tls-server-name': z.string().optional(),
    'proxy-url': z.string().optional(),
  })
  .loose();

const Exec = z
  .object({
    apiVersion: z.string().optional(),
    command: z.string().min(1),
    args: z.array(z.string()).nullish(),
    env: z.array(z.object({ name: z.string(), value: z.string() })).nullish(),
    provideClusterInfo: z.boolean().optional(),
  })
  .loose();

const User = z
  .object({
    token: z.string().optional(),
    tokenFile: z.string().optional(),
    'client-certificate': z.string().optional(),
    'client-certificate-data': z.string().optional(),
    'client-key': z.string().optional(),
    'client-key-data': z.string().optional(),
    username: z.string().optional(),
    password: z.string().optional(),
    exec: Exec.optional(),
    'auth-provider': z.object({ name: z.string() }).loose().optional(),
  })
  .loose();

const Context = z
  .object({ cluster: z.string(), user: z.string().optional(), namespace: z.string().optional() })
  .loose();

const KubeconfigFile = z
  .object({
    'current-context': z.string().optional(),
    clusters: z.array(z.object({ name: z.string(), cluster: Cluster }).loose()).nullish(),
    users: z.array(z.object({ name: z.string(), user: User.nullish() }).loose()).nullish(),
    contexts: z.array(z.object({ name: z.string(), context: Context }).loose()).nullish(),
  })
  .loose();

function invalid(message: string): MooringError {
  return new MooringError('MOORING_E_CONFIG_INVALID', `kubeconfig could not be loaded: ${message}`);
}

/** `*-data` (base64) wins over the file path; paths are relative to the kubeconfig's directory. */
function material(data: string | undefined, file: string | undefined, baseDir: string, what: string) {
  if (data) return Buffer.from(data, 'base64');
  if (!file) return undefined;
  const full = path.resolve(baseDir, file);
  try {
    return readFileSync(full);
  } catch {
    throw invalid(`${what} file ${file} cannot be read`);
  }
}

function credentialsOf(user: z.infer<typeof User> | null | undefined, baseDir: string): Credentials {
  if (!user) return { type: 'none' };
  if (user['auth-provider']) {
    throw invalid(
      `auth-provider "${user['auth-provider'].name}" is not supported; use an exec credential plugin (as kubectl does)`,
    );
  }
  if (user.token) return { type: 'token', token: user.token };
  if (user.tokenFile) return { type: 'token-file', file: path.resolve(baseDir, user.tokenFile) };
  if (user.exec) {
    const { command, args, env, apiVersion } = user.exec;
    return {
      type: 'exec',
      exec: {
        command,
        args: args ?? [],
        env: env ?? [],
        apiVersion: apiVersion ?? 'client.authentication.k8s.io/v1',
        workDir: baseDir,
      },
    };
  }
  if (user.username !== undefined && user.password !== undefined) {
    return { type: 'basic', username: user.username, password: user.password };
  }
  return { type: 'none' };
}

/** Parses kubeconfig YAML; `baseDir` resolves relative file paths. */
export function parseKubeconfig(text: string, baseDir: string): ClusterAccess {
  let doc: unknown;
  try {
    doc = parseYaml(text);
  } catch (err) {
    throw invalid(`not YAML (${err instanceof Error ? err.message.split('\n')[0] : 'parse error'})`);
  }
  const parsed = KubeconfigFile.safeParse(doc);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw invalid(`${issue?.path.join('.') || '(document)'}: ${issue?.message ?? 'invalid'}`);
  }
  const cfg = parsed.data;
  const contexts = cfg.contexts ?? [];
  const current = cfg['current-context'];
  const context = current ? contexts.find((c) => c.name === current) : contexts[0];
  if (current && !context) throw invalid(`current-context "${current}" is not among its contexts`);
  const clusterName = context?.context.cluster ?? cfg.clusters?.[0]?.name;
  const cluster = cfg.clusters?.find((c) => c.name === clusterName)?.cluster;
  if (!cluster) throw invalid('has no current cluster');
  const userName = context?.context.user;
  const userEntry = userName === undefined ? undefined : cfg.users?.find((u) => u.name === userName);
  if (userName !== undefined && userName !== '' && !userEntry)
    throw invalid(`user "${userName}" is not among its users`);
  const user = userEntry?.user;
  let server: URL;
  try {
    server = new URL(cluster.server);
  } catch {
    throw invalid(`cluster server "${cluster.server}" is not a URL`);
  }
  const insecure = cluster['insecure-skip-tls-verify'] === true;
  if (server.protocol === 'http:' && !insecure) {
    throw invalid(`cluster server ${server.origin} is plain HTTP; set insecure-skip-tls-verify to allow it`);
  }
  const tls: TlsSettings = { rejectUnauthorized: !insecure };
  const ca = material(
    cluster['certificate-authority-data'],
    cluster['certificate-authority'],
    baseDir,
    'certificate-authority',
  );
  if (ca) tls.ca = ca;
  const cert = material(
    user?.['client-certificate-data'],
    user?.['client-certificate'],
    baseDir,
    'client-certificate',
  );
  const key = material(user?.['client-key-data'], user?.['client-key'], baseDir, 'client-key');
  if ((cert === undefined) !== (key === undefined))
    throw invalid('a client certificate needs its key (and the key its certificate)');
  if (cert && key) Object.assign(tls, { cert, key });
  if (cluster['tls-server-name']) tls.servername = cluster['tls-server-name'];
  const access: ClusterAccess = {
    server: cluster.server.replace(/\/+$/, ''),
    tls,
    credentials: credentialsOf(user, baseDir),
  };
  const proxy = cluster['proxy-url'];
  if (proxy) {
    // The URL may carry a user and password: only its scheme and host are ever shown.
    if (!/^https?:\/\//.test(proxy))
      throw invalid(`proxy-url ${describeProxy(proxy)}: only http and https proxies are supported`);
    access.proxyUrl = proxy;
  }
  if (context?.context.namespace) access.namespace = context.context.namespace;
  return access;
}

/** The pod's service account: `KUBERNETES_SERVICE_HOST`/`_PORT`, its CA and its (rotating) token. */
export function inClusterAccess(
  env: Readonly<Record<string, string | undefined>>,
  dir = SERVICE_ACCOUNT_DIR,
): ClusterAccess {
  const host = env.KUBERNETES_SERVICE_HOST;
  const port = env.KUBERNETES_SERVICE_PORT;
  if (!host || !port) {
    throw invalid('not running in a cluster (KUBERNETES_SERVICE_HOST/PORT unset): pass --kubeconfig');
  }
  const tokenFile = path.join(dir, 'token');
  if (!existsSync(tokenFile)) throw invalid(`in-cluster: service account token ${tokenFile} not found`);
  const caFile = path.join(dir, 'ca.crt');
  const tls: TlsSettings = { rejectUnauthorized: true };
  if (existsSync(caFile)) tls.ca = readFileSync(caFile);
  const h = host.includes(':') ? `[${host}]` : host;
  return {
    server: `https://${h}:${port}`,
    tls,
    credentials: { type: 'token-file', file: tokenFile },
    inCluster: true,
  };
}

/**
 * `source` is kubeconfig YAML (it contains a newline or `apiVersion:`), a path to a kubeconfig
 * file, or `in-cluster` / undefined for the service account.
 */
export function loadClusterAccess(
  source: string | undefined,
  env: Readonly<Record<string, string | undefined>>,
  cwd = process.cwd(),
): ClusterAccess {
  if (source === undefined || source === IN_CLUSTER) return inClusterAccess(env);
  if (source.includes('\n') || /^\s*apiVersion\s*:/.test(source)) return parseKubeconfig(source, cwd);
  const file = path.resolve(cwd, source);
  if (!existsSync(file)) throw invalid(`file not found: ${source}`);
  return parseKubeconfig(readFileSync(file, 'utf8'), path.dirname(file));
}
