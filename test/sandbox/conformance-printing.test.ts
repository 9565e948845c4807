/**
 * Server-side printing through real kubectl 1.34: the columns and cells of `kubectl get` (and
 * `-o wide`) for each kind the sandbox serves, as kube-apiserver's printers define them
 * (pkg/printers/internalversion/printers.go), including its HumanDuration ages.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, MERGE, type Sandbox, startSandbox } from './helpers.ts';
import { printedTable } from './kubectl-table.ts';

const NS = 'print';
const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;

/** A timestamp `ms` before now, as the API writes them (seconds, UTC). */
function ago(ms: number): string {
  return new Date(Date.now() - ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

const AGE = /^\d+s$/;

describe('conformance: server-side printing (meta.k8s.io/v1 Table) through real kubectl', () => {
  let sb: Sandbox;
  const post = async (path: string, body: unknown): Promise<void> => {
    const res = await sb.call('POST', path, body);
    if (res.status !== 201) throw new Error(`POST ${path}: ${res.status} ${JSON.stringify(res.body)}`);
  };
  const get = async (args: string[]): Promise<string> => {
    const out = await sb.kubectl(['get', '-n', NS, ...args]);
    if (out.code !== 0) throw new Error(`kubectl get ${args.join(' ')}: ${out.stderr}`);
    return out.stdout;
  };

  beforeAll(async () => {
    sb = await startSandbox({ namespaces: [NS] });
    const labels = { app: 'web' };
    await post(`/apis/apps/v1/namespaces/${NS}/deployments`, {
      metadata: { name: 'web', labels },
      spec: {
        replicas: 2,
        selector: { matchLabels: labels },
        template: {
          metadata: { labels },
          spec: {
            containers: [
              { name: 'app', image: 'nginx:1.27' },
              { name: 'sidecar', image: 'busybox:1.36' },
            ],
          },
        },
      },
    });
    await post(`/apis/apps/v1/namespaces/${NS}/statefulsets`, {
      metadata: { name: 'db' },
      spec: {
        replicas: 1,
        serviceName: 'db',
        selector: { matchLabels: { app: 'db' } },
        template: {
          metadata: { labels: { app: 'db' } },
          spec: { containers: [{ name: 'db', image: 'postgres:16' }] },
        },
        volumeClaimTemplates: [
          {
            metadata: { name: 'data' },
            spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
          },
        ],
      },
    });
    await eventually(
      () =>
        (sb.api.getObject('apps/v1', 'Deployment', NS, 'web')?.status as { availableReplicas?: number })
          ?.availableReplicas === 2,
    );
  });
  afterAll(async () => {
    await sb.close();
  });

  it('Deployments -o wide: READY UP-TO-DATE AVAILABLE, then CONTAINERS IMAGES SELECTOR', async () => {
    const t = printedTable(await get(['deployments', '-o', 'wide']), [
      'NAME',
      'READY',
      'UP-TO-DATE',
      'AVAILABLE',
      'AGE',
      'CONTAINERS',
      'IMAGES',
      'SELECTOR',
    ]);
    expect(t.rows).toEqual([
      {
        NAME: 'web',
        READY: '2/2',
        'UP-TO-DATE': '2',
        AVAILABLE: '2',
        AGE: expect.stringMatching(AGE),
        CONTAINERS: 'app,sidecar',
        IMAGES: 'nginx:1.27,busybox:1.36',
        SELECTOR: 'app=web',
      },
    ]);
  });

  it('ReplicaSets: DESIRED CURRENT READY AGE; -o wide adds CONTAINERS IMAGES SELECTOR', async () => {
    const plain = printedTable(await get(['replicasets']), ['NAME', 'DESIRED', 'CURRENT', 'READY', 'AGE']);
    expect(plain.rows).toEqual([
      {
        NAME: expect.stringMatching(/^web-[a-z0-9]+$/),
        DESIRED: '2',
        CURRENT: '2',
        READY: '2',
        AGE: expect.stringMatching(AGE),
      },
    ]);
    const hash = (plain.rows[0]?.NAME ?? '').slice('web-'.length);
    const wide = printedTable(await get(['replicasets', '-o', 'wide']), [
      ...['NAME', 'DESIRED', 'CURRENT', 'READY', 'AGE'],
      ...['CONTAINERS', 'IMAGES', 'SELECTOR'],
    ]);
    expect(wide.rows[0]).toMatchObject({
      CONTAINERS: 'app,sidecar',
      IMAGES: 'nginx:1.27,busybox:1.36',
      SELECTOR: `app=web,pod-template-hash=${hash}`,
    });
  });

  it('StatefulSets -o wide: READY AGE CONTAINERS IMAGES', async () => {
    await eventually(async () => (await get(['statefulsets'])).includes('1/1'), 400);
    const t = printedTable(await get(['statefulsets', '-o', 'wide']), [
      'NAME',
      'READY',
      'AGE',
      'CONTAINERS',
      'IMAGES',
    ]);
    expect(t.rows).toEqual([
      { NAME: 'db', READY: '1/1', AGE: expect.stringMatching(AGE), CONTAINERS: 'db', IMAGES: 'postgres:16' },
    ]);
  });

  it('Pods: READY STATUS RESTARTS (with the last restart) AGE; -o wide adds IP NODE NOMINATED NODE READINESS GATES', async () => {
    await post(`/api/v1/namespaces/${NS}/pods`, {
      metadata: { name: 'web-1' },
      spec: {
        nodeName: 'node-a',
        readinessGates: [{ conditionType: 'example.com/lb-ready' }],
        containers: [
          { name: 'app', image: 'nginx:1.27' },
          { name: 'sidecar', image: 'busybox:1.36' },
        ],
      },
    });
    await post(`/api/v1/namespaces/${NS}/pods`, {
      metadata: { name: 'crash' },
      spec: { containers: [{ name: 'app', image: 'broken:1' }] },
    });
    const running = { running: { startedAt: ago(HOUR) } };
    const status = async (name: string, body: unknown): Promise<void> => {
      const res = await sb.call('PATCH', `/api/v1/namespaces/${NS}/pods/${name}/status`, body, MERGE);
      expect(res.status).toBe(200);
    };
    await status('web-1', {
      status: {
        phase: 'Running',
        podIP: '10.244.0.7',
        podIPs: [{ ip: '10.244.0.7' }],
        conditions: [
          { type: 'Ready', status: 'True' },
          { type: 'example.com/lb-ready', status: 'True' },
        ],
        containerStatuses: [
          {
            name: 'app',
            image: 'nginx:1.27',
            imageID: '',
            ready: true,
            restartCount: 3,
            state: running,
            lastState: { terminated: { exitCode: 1, finishedAt: ago(20 * DAY) } },
          },
          {
            name: 'sidecar',
            image: 'busybox:1.36',
            imageID: '',
            ready: true,
            restartCount: 0,
            state: running,
          },
        ],
      },
    });
    await status('crash', {
      status: {
        phase: 'Running',
        containerStatuses: [
          {
            name: 'app',
            image: 'broken:1',
            imageID: '',
            ready: false,
            restartCount: 5,
            state: { waiting: { reason: 'CrashLoopBackOff' } },
            lastState: { terminated: { exitCode: 2, finishedAt: ago(3 * DAY + 4 * HOUR + MIN) } },
          },
        ],
      },
    });
    const plain = printedTable(await get(['pods']), ['NAME', 'READY', 'STATUS', 'RESTARTS', 'AGE']);
    expect(plain.rows).toEqual([
      {
        NAME: 'crash',
        READY: '0/1',
        STATUS: 'CrashLoopBackOff',
        RESTARTS: '5 (3d4h ago)',
        AGE: expect.any(String),
      },
      { NAME: 'web-1', READY: '2/2', STATUS: 'Running', RESTARTS: '3 (20d ago)', AGE: expect.any(String) },
    ]);
    const wide = printedTable(await get(['pods', '-o', 'wide']), [
      ...['NAME', 'READY', 'STATUS', 'RESTARTS', 'AGE'],
      ...['IP', 'NODE', 'NOMINATED NODE', 'READINESS GATES'],
    ]);
    expect(wide.rows.map((r) => [r.NAME, r.IP, r.NODE, r['NOMINATED NODE'], r['READINESS GATES']])).toEqual([
      ['crash', '<none>', '<none>', '<none>', '<none>'],
      ['web-1', '10.244.0.7', 'node-a', '<none>', '1/1'],
    ]);
  });

  it('--sort-by gets whole objects in the rows (includeObject=Object) and sorts on their fields', async () => {
    const out = await get(['pods', '--sort-by=.status.containerStatuses[0].restartCount']);
    const t = printedTable(out, ['NAME', 'READY', 'STATUS', 'RESTARTS', 'AGE']);
    expect(t.rows.map((r) => r.NAME)).toEqual(['web-1', 'crash']);
  });

  it('Events: LAST SEEN TYPE REASON OBJECT MESSAGE; -o wide adds SUBOBJECT SOURCE FIRST SEEN COUNT NAME', async () => {
    await post(`/api/v1/namespaces/${NS}/events`, {
      metadata: { name: 'web.1' },
      involvedObject: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', namespace: NS },
      reason: 'ScalingReplicaSet',
      message: 'Scaled up replica set web-abc to 2',
      type: 'Normal',
      source: { component: 'deployment-controller' },
      firstTimestamp: ago(3 * DAY + 4 * HOUR + MIN),
      lastTimestamp: ago(5 * HOUR + 30 * MIN + 20_000),
      count: 3,
    });
    // An events.k8s.io-style event: no first/last timestamps, a series and a reporting controller.
    await post(`/api/v1/namespaces/${NS}/events`, {
      metadata: { name: 'crash.1' },
      involvedObject: {
        apiVersion: 'v1',
        kind: 'Pod',
        name: 'crash',
        namespace: NS,
        fieldPath: 'spec.containers{app}',
      },
      reason: 'BackOff',
      message: '  Back-off restarting failed container  ',
      type: 'Warning',
      eventTime: new Date(Date.now() - 10 * DAY).toISOString().replace('Z', '000Z'),
      series: {
        count: 7,
        lastObservedTime: new Date(Date.now() - 2 * HOUR - 5 * MIN - 20_000).toISOString(),
      },
      reportingComponent: 'kubelet',
      reportingInstance: 'node-a',
      action: 'Restarting',
      source: {},
    });
    const plain = printedTable(await get(['events']), ['LAST SEEN', 'TYPE', 'REASON', 'OBJECT', 'MESSAGE']);
    expect(plain.rows).toEqual(
      expect.arrayContaining([
        {
          'LAST SEEN': '5h30m',
          TYPE: 'Normal',
          REASON: 'ScalingReplicaSet',
          OBJECT: 'deployment/web',
          MESSAGE: 'Scaled up replica set web-abc to 2',
        },
        {
          'LAST SEEN': '125m',
          TYPE: 'Warning',
          REASON: 'BackOff',
          OBJECT: 'pod/crash',
          MESSAGE: 'Back-off restarting failed container',
        },
      ]),
    );
    const wide = printedTable(await get(['events', '-o', 'wide']), [
      ...['LAST SEEN', 'TYPE', 'REASON', 'OBJECT', 'SUBOBJECT', 'SOURCE'],
      ...['MESSAGE', 'FIRST SEEN', 'COUNT', 'NAME'],
    ]);
    const pick = (r: Record<string, string>) => [r.NAME, r.SUBOBJECT, r.SOURCE, r['FIRST SEEN'], r.COUNT];
    expect(wide.rows.map(pick)).toEqual(
      expect.arrayContaining([
        ['web.1', '', 'deployment-controller', '3d4h', '3'],
        ['crash.1', 'spec.containers{app}', 'kubelet, node-a', '10d', '7'],
      ]),
    );
  });

  it('PersistentVolumeClaims: STATUS VOLUME CAPACITY ACCESS MODES STORAGECLASS VOLUMEATTRIBUTESCLASS AGE', async () => {
    await post(`/api/v1/namespaces/${NS}/persistentvolumeclaims`, {
      metadata: { name: 'scratch' },
      spec: {
        storageClassName: 'fast',
        accessModes: ['ReadWriteOnce', 'ReadOnlyMany'],
        resources: { requests: { storage: '5Gi' } },
      },
    });
    const columns = ['NAME', 'STATUS', 'VOLUME', 'CAPACITY', 'ACCESS MODES', 'STORAGECLASS'];
    const t = printedTable(await get(['pvc']), [...columns, 'VOLUMEATTRIBUTESCLASS', 'AGE']);
    expect(t.rows).toEqual([
      {
        NAME: 'data-db-0',
        STATUS: 'Bound',
        VOLUME: expect.stringMatching(/^pvc-/),
        CAPACITY: '1Gi',
        'ACCESS MODES': 'RWO',
        STORAGECLASS: 'standard',
        VOLUMEATTRIBUTESCLASS: '<unset>',
        AGE: expect.stringMatching(AGE),
      },
      {
        NAME: 'scratch',
        STATUS: 'Pending',
        VOLUME: '',
        CAPACITY: '',
        'ACCESS MODES': '',
        STORAGECLASS: 'fast',
        VOLUMEATTRIBUTESCLASS: '<unset>',
        AGE: expect.stringMatching(AGE),
      },
    ]);
    const wide = printedTable(await get(['pvc', '-o', 'wide']), [
      ...columns,
      ...['VOLUMEATTRIBUTESCLASS', 'AGE', 'VOLUMEMODE'],
    ]);
    expect(wide.rows.map((r) => r.VOLUMEMODE)).toEqual(['Filesystem', 'Filesystem']);
  });

  it('Services -o wide: CLUSTER-IP from clusterIPs, EXTERNAL-IP by type, PORT(S), SELECTOR', async () => {
    await post(`/api/v1/namespaces/${NS}/services`, {
      metadata: { name: 'web' },
      spec: {
        selector: { tier: 'front', app: 'web' },
        ports: [
          { name: 'http', port: 80 },
          { name: 'dns', port: 53, protocol: 'UDP' },
        ],
      },
    });
    await post(`/api/v1/namespaces/${NS}/services`, {
      metadata: { name: 'ext' },
      spec: { type: 'ExternalName', externalName: 'db.example.com' },
    });
    const t = printedTable(await get(['services', '-o', 'wide']), [
      ...['NAME', 'TYPE', 'CLUSTER-IP', 'EXTERNAL-IP', 'PORT(S)', 'AGE', 'SELECTOR'],
    ]);
    const row = (name: string) => t.rows.find((r) => r.NAME === name);
    expect(row('web')).toMatchObject({
      TYPE: 'ClusterIP',
      'CLUSTER-IP': expect.stringMatching(/^10\.96\.\d+\.\d+$/),
      'EXTERNAL-IP': '<none>',
      'PORT(S)': '80/TCP,53/UDP',
      SELECTOR: 'app=web,tier=front',
    });
    expect(row('ext')).toMatchObject({
      TYPE: 'ExternalName',
      'CLUSTER-IP': '<none>',
      'EXTERNAL-IP': 'db.example.com',
      'PORT(S)': '<none>',
      SELECTOR: '<none>',
    });
  });

  it('Secrets, ConfigMaps, ServiceAccounts, Namespaces: the printers’ columns', async () => {
    await post(`/api/v1/namespaces/${NS}/secrets`, {
      metadata: { name: 'creds' },
      type: 'Opaque',
      data: { a: 'YQ==', b: 'Yg==' },
    });
    await post(`/api/v1/namespaces/${NS}/configmaps`, {
      metadata: { name: 'conf' },
      data: { a: '1' },
      binaryData: { b: 'Yg==' },
    });
    await post(`/api/v1/namespaces/${NS}/serviceaccounts`, {
      metadata: { name: 'builder' },
      secrets: [{ name: 'builder-token' }],
    });
    const secrets = printedTable(await get(['secret', 'creds']), ['NAME', 'TYPE', 'DATA', 'AGE']);
    expect(secrets.rows[0]).toMatchObject({ NAME: 'creds', TYPE: 'Opaque', DATA: '2' });
    const cms = printedTable(await get(['configmap', 'conf']), ['NAME', 'DATA', 'AGE']);
    expect(cms.rows[0]).toMatchObject({ NAME: 'conf', DATA: '2' });
    const sas = printedTable(await get(['serviceaccount', 'builder']), ['NAME', 'SECRETS', 'AGE']);
    expect(sas.rows[0]).toMatchObject({ NAME: 'builder', SECRETS: '1' });
    const ns = printedTable(await get(['namespace', NS]), ['NAME', 'STATUS', 'AGE']);
    expect(ns.rows[0]).toMatchObject({ NAME: NS, STATUS: 'Active' });
  });

  it('HPAs and PDBs: REFERENCE TARGETS MINPODS MAXPODS REPLICAS; MIN AVAILABLE MAX UNAVAILABLE ALLOWED DISRUPTIONS', async () => {
    await post(`/apis/autoscaling/v2/namespaces/${NS}/horizontalpodautoscalers`, {
      metadata: { name: 'web' },
      spec: {
        scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' },
        minReplicas: 2,
        maxReplicas: 5,
        metrics: [
          {
            type: 'Resource',
            resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } },
          },
        ],
      },
    });
    const hpa = printedTable(await get(['hpa']), [
      ...['NAME', 'REFERENCE', 'TARGETS', 'MINPODS', 'MAXPODS', 'REPLICAS', 'AGE'],
    ]);
    expect(hpa.rows).toEqual([
      {
        NAME: 'web',
        REFERENCE: 'Deployment/web',
        TARGETS: 'cpu: <unknown>/80%',
        MINPODS: '2',
        MAXPODS: '5',
        REPLICAS: '0',
        AGE: expect.stringMatching(AGE),
      },
    ]);
    await post(`/apis/policy/v1/namespaces/${NS}/poddisruptionbudgets`, {
      metadata: { name: 'min' },
      spec: { minAvailable: 1, selector: { matchLabels: { app: 'web' } } },
    });
    await post(`/apis/policy/v1/namespaces/${NS}/poddisruptionbudgets`, {
      metadata: { name: 'pct' },
      spec: { maxUnavailable: '50%', selector: { matchLabels: { app: 'web' } } },
    });
    const pdb = printedTable(await get(['pdb']), [
      ...['NAME', 'MIN AVAILABLE', 'MAX UNAVAILABLE', 'ALLOWED DISRUPTIONS', 'AGE'],
    ]);
    expect(
      pdb.rows.map((r) => [r.NAME, r['MIN AVAILABLE'], r['MAX UNAVAILABLE'], r['ALLOWED DISRUPTIONS']]),
    ).toEqual([
      ['min', '1', 'N/A', '0'],
      ['pct', 'N/A', '50%', '0'],
    ]);
  });

  it('NetworkPolicies and Ingresses: POD-SELECTOR as a label selector; CLASS HOSTS ADDRESS PORTS', async () => {
    await post(`/apis/networking.k8s.io/v1/namespaces/${NS}/networkpolicies`, {
      metadata: { name: 'deny' },
      spec: {
        podSelector: {
          matchLabels: { app: 'web' },
          matchExpressions: [
            { key: 'tier', operator: 'NotIn', values: ['b', 'a'] },
            { key: 'canary', operator: 'DoesNotExist' },
          ],
        },
      },
    });
    await post(`/apis/networking.k8s.io/v1/namespaces/${NS}/networkpolicies`, {
      metadata: { name: 'all' },
      spec: { podSelector: {} },
    });
    const np = printedTable(await get(['networkpolicies']), ['NAME', 'POD-SELECTOR', 'AGE']);
    expect(np.rows.map((r) => [r.NAME, r['POD-SELECTOR']])).toEqual([
      ['all', '<none>'],
      ['deny', 'app=web,!canary,tier notin (a,b)'],
    ]);
    await post(`/apis/networking.k8s.io/v1/namespaces/${NS}/ingresses`, {
      metadata: { name: 'web' },
      spec: {
        ingressClassName: 'nginx',
        rules: [
          { host: 'a.example.com' },
          { host: 'b.example.com' },
          {},
          { host: 'c.example.com' },
          { host: 'd.example.com' },
        ],
        tls: [{ hosts: ['a.example.com'] }],
      },
    });
    const ing = printedTable(await get(['ingress']), ['NAME', 'CLASS', 'HOSTS', 'ADDRESS', 'PORTS', 'AGE']);
    expect(ing.rows[0]).toMatchObject({
      NAME: 'web',
      CLASS: 'nginx',
      HOSTS: 'a.example.com,b.example.com,c.example.com + 2 more...',
      ADDRESS: '',
      PORTS: '80, 443',
    });
  });

  it('Roles have no printer: the default NAME / CREATED AT; RoleBindings ROLE AGE, -o wide USERS GROUPS SERVICEACCOUNTS', async () => {
    await post(`/apis/rbac.authorization.k8s.io/v1/namespaces/${NS}/roles`, {
      metadata: { name: 'reader' },
      rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }],
    });
    await post(`/apis/rbac.authorization.k8s.io/v1/namespaces/${NS}/rolebindings`, {
      metadata: { name: 'readers' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'reader' },
      subjects: [
        { kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'alice' },
        { kind: 'Group', apiGroup: 'rbac.authorization.k8s.io', name: 'dev' },
        { kind: 'ServiceAccount', name: 'builder', namespace: NS },
      ],
    });
    const roles = printedTable(await get(['roles']), ['NAME', 'CREATED AT']);
    const created = sb.api.getObject('rbac.authorization.k8s.io/v1', 'Role', NS, 'reader')?.metadata
      ?.creationTimestamp;
    expect(roles.rows).toEqual([{ NAME: 'reader', 'CREATED AT': created }]);
    const rb = printedTable(await get(['rolebindings', '-o', 'wide']), [
      ...['NAME', 'ROLE', 'AGE', 'USERS', 'GROUPS', 'SERVICEACCOUNTS'],
    ]);
    expect(rb.rows[0]).toMatchObject({
      NAME: 'readers',
      ROLE: 'Role/reader',
      USERS: 'alice',
      GROUPS: 'dev',
      SERVICEACCOUNTS: `${NS}/builder`,
    });
  });
});
