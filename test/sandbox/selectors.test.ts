/** Label selector parsing and matching, as labels.Parse in k8s.io/apimachinery defines it. */
import { describe, expect, it } from 'vitest';
import {
  matchesFields,
  matchesLabels,
  parseFieldSelector,
  parseLabelSelector,
} from '../../src/sandbox/selectors.ts';

describe('label selectors', () => {
  const labels = { app: 'web', tier: 'front', 'mooring.dev/listener-id': 'L1' };
  const cases: [string, boolean][] = [
    ['app=web', true],
    ['app==web', true],
    ['app!=web', false],
    ['app!=db', true],
    ['missing!=x', true], // != matches objects without the key
    ['tier in (front,back)', true],
    ['tier notin (front)', false],
    ['missing notin (x)', true],
    ['mooring.dev/listener-id', true],
    ['!mooring.dev/listener-id', false],
    ['!missing', true],
    ['app=web,tier in (back)', false],
    ['app in (web, db),tier', true],
    ['', true],
  ];
  for (const [selector, expected] of cases) {
    it(`"${selector}" ${expected ? 'matches' : 'does not match'}`, () => {
      expect(matchesLabels(parseLabelSelector(selector), labels)).toBe(expected);
    });
  }

  it('rejects a malformed selector with a 400 BadRequest Status', () => {
    expect(() => parseLabelSelector('a b c')).toThrow(/unable to parse requirement/);
  });
});

describe('field selectors', () => {
  const event = {
    metadata: { name: 'e1', namespace: 'apps' },
    involvedObject: { kind: 'Deployment', name: 'web', namespace: 'apps' },
    reason: 'Reconciled',
    type: 'Normal',
  };
  it('metadata.name and metadata.namespace work for every kind; = and != ', () => {
    expect(matchesFields(parseFieldSelector('metadata.name=e1', 'ConfigMap'), event)).toBe(true);
    expect(matchesFields(parseFieldSelector('metadata.namespace!=apps', 'ConfigMap'), event)).toBe(false);
  });
  it('Events select on involvedObject.*, reason and type (kubectl describe uses them)', () => {
    const sel = parseFieldSelector(
      'involvedObject.kind=Deployment,involvedObject.name=web,type=Normal',
      'Event',
    );
    expect(matchesFields(sel, event)).toBe(true);
    expect(matchesFields(parseFieldSelector('reason=Failed', 'Event'), event)).toBe(false);
  });
  it('a field the kind does not index is a 400', () => {
    expect(() => parseFieldSelector('reason=x', 'ConfigMap')).toThrow(/field label not supported: reason/);
  });
});
