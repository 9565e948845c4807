/** Label selector parsing and matching, as labels.Parse in k8s.io/apimachinery defines it. */
import { describe, expect, it } from 'vitest';
import { matchesLabels, parseLabelSelector } from '../../src/sandbox/selectors.ts';

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
