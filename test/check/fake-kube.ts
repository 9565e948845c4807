/** A Kubernetes API of a few answers, for the preflight's checks: path → answer or HTTP status. */
import { KubeApiError, type KubeRequest, type KubeResponse } from '../../src/kube/http.ts';

export type Answer = { body: unknown; headers?: Record<string, string> } | number;

/** A `request` answering from `routes` (by `METHOD path`, else by path); unknown paths answer 404. */
export function fakeKube(routes: Record<string, Answer | ((req: KubeRequest) => Answer)>) {
  const seen: KubeRequest[] = [];
  return {
    seen,
    async request<T>(req: KubeRequest): Promise<KubeResponse<T>> {
      seen.push(req);
      const route = routes[`${req.method} ${req.path}`] ?? routes[req.path] ?? 404;
      const answer = typeof route === 'function' ? route(req) : route;
      if (typeof answer === 'number') throw new KubeApiError(answer, {}, req.method);
      return { status: 200, body: answer.body as T, headers: answer.headers ?? {} };
    },
  };
}
