/**
 * `kubectl get controllerrevisions` through real kubectl 1.34 prints the columns of the 1.34
 * printer: NAME, CONTROLLER (`<kind>.<group>/<name>` of the controlling owner), REVISION, AGE.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { manifest, type Sandbox, startSandbox } from './helpers.ts';

const STS = `apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: web
  namespace: team
spec:
  serviceName: web
  replicas: 1
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: app, image: "nginx:1.27"}]
`;

describe('conformance: ControllerRevision table', () => {
  let sb: Sandbox;
  beforeAll(async () => {
    sb = await startSandbox({ namespaces: ['team'] });
  });
  afterAll(async () => {
    await sb.close();
  });

  it('kubectl get controllerrevisions prints NAME CONTROLLER REVISION AGE', async () => {
    const applied = await sb.kubectl(['apply', '-f', manifest(sb, 'sts.yaml', STS)]);
    expect(applied.stderr).toBe('');
    const image = ['set', 'image', 'statefulset/web', 'app=nginx:1.28', '-n', 'team'];
    expect((await sb.kubectl(image)).code).toBe(0);
    const out = await sb.kubectl(['get', 'controllerrevisions', '-n', 'team', '--sort-by=.revision']);
    expect(out.stderr).toBe('');
    const rows = out.stdout
      .trim()
      .split('\n')
      .map((line) => line.split(/\s+/));
    expect(rows[0]).toEqual(['NAME', 'CONTROLLER', 'REVISION', 'AGE']);
    expect(rows.slice(1).map((r) => [r[0]?.startsWith('web-'), r[1], r[2]])).toEqual([
      [true, 'statefulset.apps/web', '1'],
      [true, 'statefulset.apps/web', '2'],
    ]);
  });
});
