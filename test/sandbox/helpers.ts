/** Test helpers: a sandbox API per suite, an HTTPS client that trusts its CA, and real kubectl. */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Agent, request } from 'undici';
import { toolPath } from '../../scripts/install-tools.ts';
import { type KubeApi, type KubeApiOptions, startKubeApi } from '../../src/sandbox/server.ts';

export interface Sandbox {
  api: KubeApi;
  dir: string;
  kubeconfigPath: string;
  /** One HTTP request to the sandbox; `body` objects are sent as JSON unless a string. */
  call(
    method: string,
    urlPath: string,
    body?: unknown,
    headers?: Record<string, string>,
  ): Promise<{
    status: number;
    body: Record<string, unknown>;
    headers: Record<string, string | string[] | undefined>;
  }>;
  /** Runs real kubectl against the sandbox with a fresh cache dir; never rejects. */
  kubectl(args: string[], input?: string): Promise<{ code: number; stdout: string; stderr: string }>;
  close(): Promise<void>;
}

export async function startSandbox(options: KubeApiOptions = {}): Promise<Sandbox> {
  const dir = mkdtempSync(path.join(tmpdir(), 'mooring-sandbox-test-'));
  const kubeconfigPath = path.join(dir, 'kubeconfig');
  const api = await startKubeApi({ ...options, kubeconfigOut: kubeconfigPath });
  const agent = new Agent({ connect: { ca: api.caPem } });
  let caches = 0;
  return {
    api,
    dir,
    kubeconfigPath,
    async call(method, urlPath, body, headers = {}) {
      const text = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
      const res = await request(`${api.url}${urlPath}`, {
        method: method as 'GET',
        body: text,
        headers: { 'content-type': 'application/json', ...headers },
        dispatcher: agent,
      });
      const raw = await res.body.text();
      let parsed: Record<string, unknown> = {};
      try {
        parsed = raw === '' ? {} : (JSON.parse(raw) as Record<string, unknown>);
      } catch {
        parsed = { raw };
      }
      return { status: res.statusCode, body: parsed, headers: res.headers };
    },
    kubectl(args, input) {
      caches += 1;
      const cacheDir = path.join(dir, `cache-${caches}`);
      return new Promise((resolve) => {
        const child = execFile(
          toolPath('kubectl'),
          ['--kubeconfig', kubeconfigPath, '--cache-dir', cacheDir, ...args],
          { timeout: 20_000 },
          (error, stdout, stderr) => {
            const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
            resolve({ code, stdout, stderr });
          },
        );
        if (input !== undefined) child.stdin?.end(input);
      });
    },
    async close() {
      await agent.close();
      await api.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Writes a manifest file into the sandbox's temp dir and returns its path. */
export function manifest(sandbox: Sandbox, name: string, text: string): string {
  const file = path.join(sandbox.dir, name);
  writeFileSync(file, text);
  return file;
}

/** A minimal valid Deployment. */
export function deployment(
  name: string,
  namespace = 'default',
  extra: { replicas?: number; image?: string } = {},
): Record<string, unknown> {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace, labels: { app: name } },
    spec: {
      replicas: extra.replicas ?? 1,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: { containers: [{ name: 'app', image: extra.image ?? 'nginx:1.27' }] },
      },
    },
  };
}

export const APPLY = { 'content-type': 'application/apply-patch+yaml' };
export const MERGE = { 'content-type': 'application/merge-patch+json' };
export const JSON_PATCH = { 'content-type': 'application/json-patch+json' };

/** Polls `check` until it returns a truthy value (for asynchronous garbage collection and controllers). */
export async function eventually<T>(check: () => T | Promise<T>, tries = 200): Promise<T> {
  for (let i = 0; ; i++) {
    const value = await check();
    if (value || i >= tries) return value;
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Managers in an object's managedFields, as `manager/operation`. */
export function managers(obj: Record<string, unknown> | undefined): string[] {
  const meta = (obj?.metadata ?? {}) as { managedFields?: { manager: string; operation: string }[] };
  return (meta.managedFields ?? []).map((m) => `${m.manager}/${m.operation}`);
}

/** Deep JSON read back from the server in assertions (shape checked by the assertions themselves). */
// biome-ignore lint/suspicious/noExplicitAny: tests walk arbitrary response JSON; the assertions are the type check
export type Json = any;
