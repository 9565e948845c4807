/**
 * Defaults and checks kube-apiserver 1.34 applies that a client reads back, through real kubectl:
 * pod defaults (requests from limits, enableServiceLinks, the httpGet probe path), HPA `behavior`,
 * a ConfigMap over 1 MiB, a bound claim shrunk, a finalizer added to an object being deleted, the
 * PVC protection finalizer, and the token controller filling a ServiceAccount token Secret.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, type Json, manifest, type Sandbox, startSandbox } from './helpers.ts';

describe('defaults and checks of a real API server, through real kubectl', () => {
  let sb: Sandbox;
  beforeAll(async () => {
    sb = await startSandbox({ namespaces: ['dc'] });
  });
  afterAll(async () => {
    await sb.close();
  });

  const create = async (name: string, text: string) =>
    sb.kubectl(['create', '-f', manifest(sb, `${name}.yaml`, text)]);
  const get = async (what: string): Promise<Json> =>
    JSON.parse((await sb.kubectl(['get', what, '-n', 'dc', '-o', 'json'])).stdout);

  it('a Pod: requests copied from limits, enableServiceLinks true, an httpGet probe gets path / and scheme HTTP', async () => {
    const made = await create(
      'pod',
      `apiVersion: v1
kind: Pod
metadata: {name: limited, namespace: dc}
spec:
  containers:
  - name: app
    image: nginx:1.27
    resources: {limits: {cpu: 500m, memory: 128Mi}, requests: {cpu: 100m}}
    readinessProbe: {httpGet: {port: 8080}}
`,
    );
    expect(made.stderr).toBe('');
    const pod = await get('pod/limited');
    expect(pod.spec.containers[0].resources).toEqual({
      limits: { cpu: '500m', memory: '128Mi' },
      requests: { cpu: '100m', memory: '128Mi' },
    });
    expect(pod.spec.enableServiceLinks).toBe(true);
    expect(pod.spec.containers[0].readinessProbe.httpGet).toEqual({ path: '/', port: 8080, scheme: 'HTTP' });
    expect(pod.status.qosClass).toBe('Burstable');
  });

  it('an HPA behavior that is given gets the default scaling rules where left out; none stays none', async () => {
    const made = await sb.kubectl(['create', 'deployment', 'scaled', '-n', 'dc', '--image=nginx:1.27']);
    expect(made.stderr).toBe('');
    expect((await sb.kubectl(['autoscale', 'deployment', 'scaled', '-n', 'dc', '--max=4'])).stderr).toBe('');
    expect((await get('hpa/scaled')).spec.behavior).toBeUndefined();
    const text = `apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: tuned, namespace: dc}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: scaled}
  maxReplicas: 4
  behavior: {scaleDown: {stabilizationWindowSeconds: 60}}
`;
    expect((await create('tuned', text)).stderr).toBe('');
    expect((await get('hpa/tuned')).spec.behavior).toEqual({
      scaleUp: {
        stabilizationWindowSeconds: 0,
        selectPolicy: 'Max',
        policies: [
          { type: 'Pods', value: 4, periodSeconds: 15 },
          { type: 'Percent', value: 100, periodSeconds: 15 },
        ],
      },
      scaleDown: {
        stabilizationWindowSeconds: 60,
        selectPolicy: 'Max',
        policies: [{ type: 'Percent', value: 100, periodSeconds: 15 }],
      },
    });
  });

  it('a ConfigMap over 1 MiB is refused with 422', async () => {
    const big = `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: big, namespace: dc}\ndata:\n  a: "${'x'.repeat(600 * 1024)}"\n  b: "${'y'.repeat(500 * 1024)}"\n`;
    const refused = await create('big', big);
    expect(refused.stderr.trim()).toBe(
      'The ConfigMap "big" is invalid: []: Too long: may not be more than 1048576 bytes',
    );
  });

  it('a bound claim may not shrink below its capacity', async () => {
    const made = await create(
      'db',
      `apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db, namespace: dc}
spec:
  replicas: 1
  serviceName: db
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec: {containers: [{name: db, image: postgres:17}]}
  volumeClaimTemplates:
  - metadata: {name: data}
    spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 2Gi}}}
`,
    );
    expect(made.stderr).toBe('');
    await eventually(async () => (await get('pvc/data-db-0')).status?.phase === 'Bound');
    const shrink = await sb.kubectl([
      'patch',
      'pvc',
      'data-db-0',
      '-n',
      'dc',
      '--type=merge',
      '-p',
      '{"spec":{"resources":{"requests":{"storage":"1Gi"}}}}',
    ]);
    expect(shrink.stderr.trim()).toBe(
      'The PersistentVolumeClaim "data-db-0" is invalid: spec.resources.requests.storage: Forbidden: field can not be less than status.capacity',
    );
    const grow = await sb.kubectl([
      'patch',
      'pvc',
      'data-db-0',
      '-n',
      'dc',
      '--type=merge',
      '-p',
      '{"spec":{"resources":{"requests":{"storage":"3Gi"}}}}',
    ]);
    expect(grow.stderr).toBe('');
  });

  it('no finalizer may be added to an object being deleted', async () => {
    const held = `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: held, namespace: dc, finalizers: [example.com/a]}\n`;
    expect((await create('held', held)).stderr).toBe('');
    expect((await sb.kubectl(['delete', 'configmap', 'held', '-n', 'dc', '--wait=false'])).code).toBe(0);
    const added = await sb.kubectl([
      'patch',
      'configmap',
      'held',
      '-n',
      'dc',
      '--type=json',
      '-p',
      '[{"op":"add","path":"/metadata/finalizers/-","value":"example.com/b"}]',
    ]);
    expect(added.stderr.trim()).toBe(
      'The ConfigMap "held" is invalid: metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers ["example.com/b"]',
    );
    const removed = await sb.kubectl([
      'patch',
      'configmap',
      'held',
      '-n',
      'dc',
      '--type=merge',
      '-p',
      '{"metadata":{"finalizers":null}}',
    ]);
    expect(removed.stderr).toBe('');
  });

  it('a claim gets the pvc-protection finalizer; deleting it unused lets it go', async () => {
    const claim = `apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {name: scratch, namespace: dc}\nspec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}\n`;
    expect((await create('scratch', claim)).stderr).toBe('');
    expect((await get('pvc/scratch')).metadata.finalizers).toEqual(['kubernetes.io/pvc-protection']);
    const deleted = await sb.kubectl(['delete', 'pvc', 'scratch', '-n', 'dc', '--timeout=10s']);
    expect(deleted.stdout.trim()).toBe('persistentvolumeclaim "scratch" deleted from dc namespace');
    const gone = await sb.kubectl(['get', 'pvc', 'scratch', '-n', 'dc']);
    expect(gone.stderr.trim()).toBe(
      'Error from server (NotFound): persistentvolumeclaims "scratch" not found',
    );
  });

  it('a claim a Pod uses stays Terminating until the Pod is gone', async () => {
    const text = `apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: used, namespace: dc}
spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}
---
apiVersion: v1
kind: Pod
metadata: {name: user, namespace: dc}
spec:
  containers: [{name: c, image: busybox:1.36}]
  volumes: [{name: d, persistentVolumeClaim: {claimName: used}}]
`;
    expect((await create('used', text)).stderr).toBe('');
    expect((await sb.kubectl(['delete', 'pvc', 'used', '-n', 'dc', '--wait=false'])).code).toBe(0);
    const terminating = await sb.kubectl(['get', 'pvc', 'used', '-n', 'dc', '--no-headers']);
    expect(terminating.stdout).toMatch(/^used\s+Terminating\s/);
    expect((await sb.kubectl(['delete', 'pod', 'user', '-n', 'dc', '--wait=false'])).code).toBe(0);
    const gone = await eventually(
      async () => (await sb.kubectl(['get', 'pvc', 'used', '-n', 'dc'])).code !== 0,
    );
    expect(gone).toBe(true);
  });

  it('the token controller fills a long-lived ServiceAccount token Secret', async () => {
    const text = `apiVersion: v1
kind: Secret
metadata:
  name: robot-token
  namespace: dc
  annotations: {kubernetes.io/service-account.name: default}
type: kubernetes.io/service-account-token
`;
    expect((await create('token', text)).stderr).toBe('');
    const secret = await eventually(async () => {
      const s = await get('secret/robot-token');
      return s.data?.token ? s : undefined;
    });
    expect(Object.keys(secret.data).sort()).toEqual(['ca.crt', 'namespace', 'token']);
    expect(Buffer.from(secret.data.namespace, 'base64').toString()).toBe('dc');
    expect(Buffer.from(secret.data['ca.crt'], 'base64').toString()).toBe(sb.api.caPem);
    const sa = await get('serviceaccount/default');
    expect(secret.metadata.annotations['kubernetes.io/service-account.uid']).toBe(sa.metadata.uid);
    // The token is a JWT (three base64url parts).
    expect(Buffer.from(secret.data.token, 'base64').toString()).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
    const described = await sb.kubectl(['describe', 'secret', 'robot-token', '-n', 'dc']);
    expect(described.stdout).toMatch(/^token:\s+\S+$/m);
  });

  it('a value the kind check refuses is reported once, in its words, not also as an OpenAPI enum miss', async () => {
    const text = `apiVersion: v1\nkind: Service\nmetadata: {name: odd, namespace: dc}\nspec: {type: Bogus, ports: [{port: 80}]}\n`;
    const refused = await create('odd', text);
    expect(refused.stderr.trim()).toBe(
      'The Service "odd" is invalid: spec.type: Unsupported value: "Bogus": supported values: "ClusterIP", "ExternalName", "LoadBalancer", "NodePort"',
    );
  });
});
