/**
 * Whether the cluster serves the kind exposure is set to: Ingress is built in, but HTTPRoute comes
 * with the Gateway API CRDs, which many clusters lack. Asked once at start through discovery, so
 * that a missing kind is one clear line instead of a failed apply for every deployment.
 */
import { kubeError } from './errors.ts';
import type { KubeHttp } from './http.ts';
import { httpStatusOf } from './errors.ts';
import type { KindInfo } from '../objects/kinds.ts';

interface ResourceList {
  resources?: { name?: string; kind?: string }[];
}

/** True when the API server lists `info` in its group version's discovery document. */
export async function servesKind(kube: Pick<KubeHttp, 'request'>, info: KindInfo): Promise<boolean> {
  const path = info.apiVersion.includes('/') ? `/apis/${info.apiVersion}` : `/api/${info.apiVersion}`;
  try {
    const res = await kube.request<ResourceList>({ method: 'GET', path });
    return (res.body?.resources ?? []).some((r) => r.name === info.plural && r.kind === info.kind);
  } catch (err) {
    // A group version the server does not serve answers 404: the kind is absent, not an error.
    if (httpStatusOf(err) === 404) return false;
    throw kubeError(err, path, 'discover');
  }
}
