import { describe, expect, it } from 'vitest';
import { holders } from '../../bench/heap-holders.ts';

/**
 * A snapshot of six nodes: a `Book` holding a Map (`#records`) of two strings, one of which a
 * second holder (`Log`) also reaches, and a closure (the program, never counted).
 */
function tinySnapshot() {
  const strings = ['', 'Book', 'Log', 'Map', 'a record', 'another', '#records', '#lines', 'f', 'fn', 'map'];
  // [type, name, id, self_size, edge_count]; types: 0 hidden, 1 object, 2 string, 3 closure
  const nodes = [
    1,
    1,
    1,
    40,
    2, // 0 Book: #records -> Map, map -> hidden (skipped)
    1,
    3,
    2,
    100,
    3, // 1 Map: -> string 3, string 4, closure 5
    1,
    2,
    3,
    30,
    1, // 2 Log: #lines -> string 4
    2,
    4,
    4,
    1000,
    0, // 3 string
    2,
    5,
    5,
    500,
    0, // 4 string (shared)
    3,
    9,
    6,
    9999,
    0, // 5 closure
    0,
    3,
    7,
    7777,
    0, // 6 hidden class
  ];
  const F = 5;
  // [type, name_or_index, to_node]; types: 0 property, 1 element, 2 internal, 3 weak
  const edges = [
    0,
    6,
    1 * F, // Book.#records
    2,
    10,
    6 * F, // Book map (its hidden class)
    1,
    0,
    3 * F, // Map[0]
    1,
    1,
    4 * F, // Map[1]
    2,
    8,
    5 * F, // Map -> closure
    0,
    7,
    4 * F, // Log.#lines
  ];
  return {
    snapshot: {
      meta: {
        node_fields: ['type', 'name', 'id', 'self_size', 'edge_count'],
        node_types: [['hidden', 'object', 'string', 'closure']] as [string[]],
        edge_fields: ['type', 'name_or_index', 'to_node'],
        edge_types: [['property', 'element', 'internal', 'weak']] as [string[]],
      },
    },
    nodes,
    edges,
    strings,
  };
}

describe('heap-holders', () => {
  it("counts each holder field's reachable data, not the program, and what two share in both", () => {
    const figures = new Map(holders(tinySnapshot(), ['Book', 'Log']).map((f) => [f.holder, f]));
    expect(figures.get('Book.#records')).toEqual({ holder: 'Book.#records', bytes: 1600, objects: 3 });
    expect(figures.get('Log.#lines')).toEqual({ holder: 'Log.#lines', bytes: 500, objects: 1 });
    expect(figures.has('Book.map')).toBe(false);
    expect(figures.get('(whole heap)')?.bytes).toBe(40 + 100 + 30 + 1000 + 500 + 9999 + 7777);
  });
});
