/**
 * Exec credential plugins (`users[].user.exec` in a kubeconfig): the command prints an
 * ExecCredential whose `status.token` authenticates requests, as `aws eks get-token`,
 * `gke-gcloud-auth-plugin` and `kubelogin` do. The token is kept until its `expirationTimestamp`
 * (less a minute) or until the server answers 401; one run at a time. A plugin that returns a
 * client certificate instead is refused with a clear reason. Neither the token nor the plugin's
 * output ever reaches an error message.
 */
import { execFile } from 'node:child_process';
import { MooringError } from '../errors.ts';

export interface ExecConfig {
  command: string;
  args: string[];
  env: Array<{ name: string; value: string }>;
  apiVersion: string;
  /** Relative commands resolve from here (the kubeconfig's directory). */
  workDir: string;
}

const RENEW_BEFORE_MS = 60_000;
const TIMEOUT_MS = 60_000;

function failure(message: string): MooringError {
  return new MooringError('MOORING_E_KUBE_UNREACHABLE', `exec credential plugin: ${message}`);
}

export class ExecCredential {
  readonly #config: ExecConfig;
  readonly #env: Readonly<Record<string, string | undefined>>;
  readonly #now: () => number;
  #token: { value: string; expiresAtMs: number } | undefined;
  #running: Promise<string> | undefined;

  constructor(config: ExecConfig, env: Readonly<Record<string, string | undefined>>, now = Date.now) {
    this.#config = config;
    this.#env = env;
    this.#now = now;
  }

  /** The current token, running the plugin when there is none or it is about to expire. */
  token(): Promise<string> {
    const t = this.#token;
    if (t && t.expiresAtMs - RENEW_BEFORE_MS > this.#now()) return Promise.resolve(t.value);
    this.#running ??= this.#run().finally(() => {
      this.#running = undefined;
    });
    return this.#running;
  }

  /** The server refused the token (401): the next request runs the plugin again. */
  invalidate(): void {
    this.#token = undefined;
  }

  async #run(): Promise<string> {
    const c = this.#config;
    const env: Record<string, string> = {};
    for (const [k, v] of Object.entries(this.#env)) if (v !== undefined) env[k] = v;
    for (const e of c.env) env[e.name] = e.value;
    env.KUBERNETES_EXEC_INFO = JSON.stringify({
      apiVersion: c.apiVersion,
      kind: 'ExecCredential',
      spec: { interactive: false },
    });
    const stdout = await new Promise<string>((resolve, reject) => {
      execFile(
        c.command,
        c.args,
        { env, cwd: c.workDir, timeout: TIMEOUT_MS, maxBuffer: 1 << 20 },
        (err, out) => {
          if (err) {
            const code = (err as { code?: unknown }).code;
            reject(
              failure(
                `${c.command} failed (${typeof code === 'number' ? `exit ${code}` : String(code ?? 'error')})`,
              ),
            );
          } else resolve(out);
        },
      );
    });
    let status:
      | { token?: unknown; expirationTimestamp?: unknown; clientCertificateData?: unknown }
      | undefined;
    try {
      status = (JSON.parse(stdout) as { status?: typeof status }).status;
    } catch {
      throw failure(`${c.command} did not print an ExecCredential (not JSON)`);
    }
    if (typeof status?.token !== 'string' || status.token === '') {
      throw failure(
        status?.clientCertificateData
          ? `${c.command} returned a client certificate; only token credentials are supported`
          : `${c.command} printed no status.token`,
      );
    }
    const expires =
      typeof status.expirationTimestamp === 'string' ? Date.parse(status.expirationTimestamp) : Number.NaN;
    this.#token = {
      value: status.token,
      expiresAtMs: Number.isFinite(expires) ? expires : Number.POSITIVE_INFINITY,
    };
    return status.token;
  }
}
