/**
 * Conformance through real kubectl 1.34: an invalid object is refused by `kubectl create -f` and
 * `kubectl apply --server-side` with the text kubectl prints for a real server's 422
 * (`The <Kind> "<name>" is invalid: <field>: <message>`, several causes as a bullet list).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { manifest, type Sandbox, startSandbox } from '../helpers.ts';

const DEPLOY_PORT = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: app
        image: nginx:1.27
        ports:
        - containerPort: 70000
`;

const DEPLOY_NEVER = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: job-like
spec:
  strategy:
    type: Recreate
    rollingUpdate: {maxSurge: 1}
  selector:
    matchLabels: {app: job-like}
  template:
    metadata:
      labels: {app: job-like}
    spec:
      restartPolicy: Never
      containers:
      - name: app
        image: busybox
        env:
        - {name: "A=B", value: "1"}
`;

const SERVICE_PORT = `apiVersion: v1
kind: Service
metadata:
  name: web
spec:
  selector: {app: web}
  ports:
  - port: 70000
`;

const PDB_BOTH = `apiVersion: policy/v1
kind: PodDisruptionBudget
metadata:
  name: budget
spec:
  minAvailable: 1
  maxUnavailable: 1
  selector:
    matchLabels: {app: web}
`;

const CONFIGMAP_KEY = `apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
data:
  "bad key": "1"
`;

describe('kubectl 1.34 against the sandbox: invalid objects', () => {
  let sb: Sandbox;
  beforeAll(async () => {
    sb = await startSandbox();
  });
  afterAll(async () => {
    await sb.close();
  });

  it('kubectl create -f: containerPort 70000 is refused as on a real cluster', async () => {
    const res = await sb.kubectl(['create', '-f', manifest(sb, 'port.yaml', DEPLOY_PORT)]);
    expect(res.code).not.toBe(0);
    expect(res.stderr.trim()).toBe(
      'The Deployment "web" is invalid: spec.template.spec.containers[0].ports[0].containerPort: Invalid value: 70000: must be between 1 and 65535, inclusive',
    );
    expect((await sb.kubectl(['get', 'deployment', 'web'])).code).not.toBe(0);
  });

  it('kubectl apply --server-side: Recreate with rollingUpdate, restartPolicy Never and a bad env name', async () => {
    const res = await sb.kubectl(['apply', '--server-side', '-f', manifest(sb, 'never.yaml', DEPLOY_NEVER)]);
    expect(res.code).not.toBe(0);
    expect(res.stderr).toContain('The Deployment "job-like" is invalid: \n');
    expect(res.stderr).toContain(
      `* spec.template.spec.containers[0].env[0].name: Invalid value: "A=B": a valid environment variable name must consist only of printable ASCII characters other than '='`,
    );
    expect(res.stderr).toContain(
      '* spec.template.spec.restartPolicy: Unsupported value: "Never": supported values: "Always"',
    );
    expect(res.stderr).toContain(
      "* spec.strategy.rollingUpdate: Forbidden: may not be specified when strategy `type` is 'Recreate'",
    );
  });

  it('kubectl apply --server-side: Service port 70000 (and its defaulted targetPort)', async () => {
    const res = await sb.kubectl(['apply', '--server-side', '-f', manifest(sb, 'svc.yaml', SERVICE_PORT)]);
    expect(res.code).not.toBe(0);
    expect(res.stderr).toContain('The Service "web" is invalid: \n');
    expect(res.stderr).toContain(
      '* spec.ports[0].port: Invalid value: 70000: must be between 1 and 65535, inclusive',
    );
    expect(res.stderr).toContain(
      '* spec.ports[0].targetPort: Invalid value: 70000: must be between 1 and 65535, inclusive',
    );
  });

  it('kubectl create -f: a PodDisruptionBudget with both minAvailable and maxUnavailable', async () => {
    const res = await sb.kubectl(['create', '-f', manifest(sb, 'pdb.yaml', PDB_BOTH)]);
    expect(res.code).not.toBe(0);
    expect(res.stderr).toMatch(
      /^The PodDisruptionBudget "budget" is invalid: spec: Invalid value: .+: minAvailable and maxUnavailable cannot be both set\n$/,
    );
  });

  it('kubectl create -f: a ConfigMap data key with a space', async () => {
    const res = await sb.kubectl(['create', '-f', manifest(sb, 'cm.yaml', CONFIGMAP_KEY)]);
    expect(res.code).not.toBe(0);
    expect(res.stderr.trim()).toBe(
      `The ConfigMap "settings" is invalid: data[bad key]: Invalid value: "bad key": a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')`,
    );
  });

  it("kubectl patch: a Secret's type may not change", async () => {
    const created = await sb.kubectl(['create', 'secret', 'generic', 'creds', '--from-literal=user=admin']);
    expect(created.code).toBe(0);
    const res = await sb.kubectl([
      'patch',
      'secret',
      'creds',
      '--type=merge',
      '-p',
      '{"type":"kubernetes.io/basic-auth"}',
    ]);
    expect(res.code).not.toBe(0);
    expect(res.stderr.trim()).toBe(
      'The Secret "creds" is invalid: type: Invalid value: "kubernetes.io/basic-auth": field is immutable',
    );
  });
});
