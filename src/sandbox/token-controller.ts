/**
 * The service account token controller's part for long-lived tokens: a Secret of type
 * `kubernetes.io/service-account-token` naming an existing ServiceAccount gets `token`, `ca.crt`
 * and `namespace` in its data and the account's uid in an annotation. The token has the shape of
 * the controller's JWT with a random signature: the sandbox accepts any bearer token anyway.
 */
import { randomBytes } from 'node:crypto';
import { recordUpdate } from './apply/index.ts';
import type { Cluster } from './cluster.ts';
import type { StoredObject } from './types.ts';

const MANAGER = 'kube-controller-manager';
const TOKEN_TYPE = 'kubernetes.io/service-account-token';
const NAME = 'kubernetes.io/service-account.name';
const UID = 'kubernetes.io/service-account.uid';

const b64 = (text: string) => Buffer.from(text).toString('base64');
const b64url = (data: string | Buffer) => Buffer.from(data).toString('base64url');

export class TokenController {
  private readonly cluster: Cluster;
  private readonly caPem: string;

  constructor(cluster: Cluster, caPem: string) {
    this.cluster = cluster;
    this.caPem = caPem;
    cluster.writeHooks.push((type, object) => {
      if (type.kind !== 'Secret' || object?.type !== TOKEN_TYPE || (object.data as { token?: string })?.token)
        return;
      const immediate = setImmediate(() =>
        this.fill(object.metadata.namespace ?? '', object.metadata.name ?? ''),
      );
      immediate.unref();
    });
  }

  private fill(namespace: string, name: string): void {
    const secrets = this.cluster.typeFor('v1', 'Secret');
    const live = this.cluster.store.get(secrets, namespace, name);
    const account = live?.metadata.annotations?.[NAME];
    if (!live || !account || live.metadata.deletionTimestamp || (live.data as { token?: string })?.token)
      return;
    const sa = this.cluster.store.get(this.cluster.typeFor('v1', 'ServiceAccount'), namespace, account);
    if (!sa) return;
    const uid = sa.metadata.uid ?? '';
    const claims = {
      iss: 'kubernetes/serviceaccount',
      'kubernetes.io/serviceaccount/namespace': namespace,
      'kubernetes.io/serviceaccount/secret.name': name,
      'kubernetes.io/serviceaccount/service-account.name': account,
      'kubernetes.io/serviceaccount/service-account.uid': uid,
      sub: `system:serviceaccount:${namespace}:${account}`,
    };
    const token = [
      b64url(JSON.stringify({ alg: 'RS256', kid: 'sandbox' })),
      b64url(JSON.stringify(claims)),
      b64url(randomBytes(64)),
    ].join('.');
    const next: StoredObject = {
      ...live,
      metadata: { ...live.metadata, annotations: { ...live.metadata.annotations, [UID]: uid } },
      data: {
        ...((live.data ?? {}) as Record<string, string>),
        token: b64(token),
        'ca.crt': b64(this.caPem),
        namespace: b64(namespace),
      },
    };
    const recorded = recordUpdate({
      live,
      updated: next,
      manager: MANAGER,
      now: this.cluster.now(),
    }) as StoredObject;
    this.cluster.commit(secrets, recorded, live);
  }
}
