/** Sandbox helpers for resource-manager tests: a manager, another field manager's writes, log capture. */
import { Writable } from 'node:stream';
import { KubeConfig, KubernetesObjectApi, PatchStrategy } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { createKubeClient } from '../../src/kube/clients.ts';
import type { KubeHttp } from '../../src/kube/http.ts';
import { ResourceManager, type ResourceManagerOptions } from '../../src/kube/resource-manager.ts';
import type { KubeObject } from '../../src/objects/kube-object.ts';
import { createLogger } from '../../src/log.ts';
import type { KubeApi } from '../../src/sandbox/server.ts';

export function kubeConfigOf(api: KubeApi): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromString(api.kubeconfig);
  return kc;
}

/** The agent's own client for the sandbox. */
export function kubeOf(api: KubeApi): KubeHttp {
  return createKubeClient(api.kubeconfig);
}

export function managerFor(api: KubeApi, opts: Partial<ResourceManagerOptions> = {}): ResourceManager {
  return new ResourceManager({ kube: kubeOf(api), ...opts });
}

/** A logger whose JSON lines can be read back. */
export function capturedLogger(): {
  logger: Logger;
  lines: () => Array<Record<string, unknown>>;
  text: () => string;
} {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk, _enc, cb) {
      chunks.push(String(chunk));
      cb();
    },
  });
  const logger = createLogger({ level: 'debug', destination: stream });
  const text = () => chunks.join('');
  return {
    logger,
    text,
    lines: () =>
      text()
        .split('\n')
        .filter((l) => l.trim() !== '')
        .map((l) => JSON.parse(l) as Record<string, unknown>),
  };
}

/** Writes as another tool would (kubectl edit/annotate, an operator), with its own field manager. */
export class OtherManager {
  readonly #api: KubernetesObjectApi;
  constructor(api: KubeApi) {
    this.#api = KubernetesObjectApi.makeApiClient(kubeConfigOf(api));
  }

  strategicMerge(patch: KubeObject, manager: string): Promise<unknown> {
    return this.#api.patch(
      patch as never,
      undefined,
      undefined,
      manager,
      undefined,
      PatchStrategy.StrategicMergePatch,
    );
  }

  mergePatch(patch: KubeObject, manager: string): Promise<unknown> {
    return this.#api.patch(
      patch as never,
      undefined,
      undefined,
      manager,
      undefined,
      PatchStrategy.MergePatch,
    );
  }

  /** Sets a Deployment's replicas as `manager` (an autoscaler, `kubectl scale`, an edit by hand). */
  scale(namespace: string, name: string, replicas: number, manager: string): Promise<unknown> {
    return this.mergePatch(
      { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name, namespace }, spec: { replicas } },
      manager,
    );
  }

  /** Creates `obj` as `manager` does with a plain POST (`kubectl create`, a controller). */
  create(obj: KubeObject, manager: string): Promise<unknown> {
    return this.#api.create(obj as never, undefined, undefined, manager);
  }

  apply(obj: KubeObject, manager: string, force = true): Promise<unknown> {
    return this.#api.patch(obj as never, undefined, undefined, manager, force, PatchStrategy.ServerSideApply);
  }

  delete(obj: KubeObject): Promise<unknown> {
    return this.#api.delete(obj as never);
  }
}
