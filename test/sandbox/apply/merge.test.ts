/**
 * Merge order of associative lists, as structured-merge-diff's merging walker orders them: the
 * applied items keep their relative order, live items the configuration does not mention stay in
 * place around them, and duplicated live items are never merged with an applied one. The cases are
 * the documented expectations of structured-merge-diff's merge behaviour (typed merge tests).
 */
import { describe, expect, it } from 'vitest';
import type { Atom } from '../../../src/sandbox/apply/schema.ts';
import { mergeValues } from '../../../src/sandbox/apply/merge.ts';

const str: Atom = { scalar: 'string' };
const num: Atom = { scalar: 'numeric' };
const bool: Atom = { scalar: 'boolean' };
const set = (elem: Atom): Atom => ({ list: { elem, kind: 'set', keys: [], keyDefaults: {} } });
const element: Atom = {
  map: {
    fields: new Map<string, Atom>([
      ['key', str],
      ['id', num],
      ['bv', bool],
      ['nv', num],
      ['value', { map: { fields: undefined, elem: str, atomic: false } }],
    ]),
    elem: undefined,
    atomic: false,
  },
};
const root: Atom = {
  map: {
    fields: new Map<string, Atom>([
      ['setStr', set(str)],
      ['setBool', set(bool)],
      ['setNumeric', set(num)],
      ['list', { list: { elem: element, kind: 'map', keys: ['id', 'key'], keyDefaults: {} } }],
      ['atomicList', { list: { elem: str, kind: 'atomic', keys: [], keyDefaults: {} } }],
    ]),
    elem: undefined,
    atomic: false,
  },
};

const merge = (lhs: string, rhs: string) =>
  mergeValues(JSON.parse(lhs), JSON.parse(rhs), root, { path: [], strict: true });

describe('set list merge order (x-kubernetes-list-type: set)', () => {
  it.each([
    ['{"setStr":["a","b","c"]}', '{"setStr":["a","b"]}', '{"setStr":["a","b","c"]}'],
    ['{"setStr":["a","b","c"]}', '{"setStr":[]}', '{"setStr":["a","b","c"]}'],
    ['{"setStr":["a","b"]}', '{"setStr":["b","a"]}', '{"setStr":["b","a"]}'],
    [
      '{"setStr":["a","b","c","g","f"]}',
      '{"setStr":["c","d","e","f"]}',
      '{"setStr":["a","b","c","g","d","e","f"]}',
    ],
    ['{"setStr":["c","d","e","f"]}', '{"setStr":["a","c","e"]}', '{"setStr":["a","c","d","e","f"]}'],
    ['{"setStr":["a","b","c","d"]}', '{"setStr":["d","e","f","a"]}', '{"setStr":["b","c","d","e","f","a"]}'],
    [
      '{"setStr":["a","b","c","d","e","f","g","h","i","j"]}',
      '{"setStr":["1","b","2","h","3","e","4","k","l"]}',
      '{"setStr":["a","1","b","c","d","f","g","2","h","i","j","3","e","4","k","l"]}',
    ],
    ['{"setStr":["a","b","b"]}', '{"setStr":["b"]}', '{"setStr":["a","b"]}'],
    [
      '{"setStr":["a","b","c","d","e","c"]}',
      '{"setStr":["1","b","2","e","d"]}',
      '{"setStr":["a","1","b","c","2","e","c","d"]}',
    ],
    ['{"setStr":["a","a","b","b"]}', '{"setStr":["b","c","d"]}', '{"setStr":["a","a","b","c","d"]}'],
    ['{"setBool":[true,false,true]}', '{"setBool":[true]}', '{"setBool":[true,false]}'],
    ['{"setNumeric":[1,2,3.14159]}', '{"setNumeric":[1,2,3]}', '{"setNumeric":[1,2,3.14159,3]}'],
  ])('%s + %s = %s', (lhs, rhs, out) => {
    expect(merge(lhs, rhs)).toEqual(JSON.parse(out));
  });
});

describe('keyed list merge order (x-kubernetes-list-type: map)', () => {
  it.each([
    [
      '{"list":[{"key":"a","id":1,"value":{"a":"a"}}]}',
      '{"list":[{"key":"a","id":2,"value":{"a":"a"}}]}',
      '{"list":[{"key":"a","id":1,"value":{"a":"a"}},{"key":"a","id":2,"value":{"a":"a"}}]}',
    ],
    [
      '{"list":[{"key":"a","id":1},{"key":"b","id":2},{"key":"c","id":3}]}',
      '{"list":[{"key":"c","id":3},{"key":"a","id":1}]}',
      '{"list":[{"key":"b","id":2},{"key":"c","id":3},{"key":"a","id":1}]}',
    ],
    [
      '{"list":[{"key":"a","id":1,"bv":true},{"key":"b","id":2},{"key":"a","id":1,"bv":false,"nv":2}]}',
      '{"list":[{"key":"a","id":1,"nv":3},{"key":"c","id":3},{"key":"b","id":2}]}',
      '{"list":[{"key":"a","id":1,"nv":3},{"key":"c","id":3},{"key":"b","id":2}]}',
    ],
    ['{"atomicList":["a","b","c"]}', '{"atomicList":[]}', '{"atomicList":[]}'],
  ])('%s + %s = %s', (lhs, rhs, out) => {
    expect(merge(lhs, rhs)).toEqual(JSON.parse(out));
  });

  it('an applied configuration that repeats a key is refused', () => {
    expect(() =>
      merge('{"list":[{"key":"b","id":2}]}', '{"list":[{"key":"a","id":1},{"key":"a","id":1}]}'),
    ).toThrow(/duplicate entries for key/);
  });
});
