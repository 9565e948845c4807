import { describe, expect, it } from 'vitest';
import { ListItems } from '../../src/kube/list-items.ts';

/** Feeds `text` to a ListItems in the given chunks; the items handed on and the document. */
function read(bytes: Buffer, cuts: number[]): { items: unknown[]; document: unknown } {
  const items: unknown[] = [];
  const page = new ListItems((item) => items.push(item));
  let from = 0;
  for (const cut of [...cuts, bytes.length]) {
    page.write(bytes.subarray(from, cut));
    from = cut;
  }
  return { items, document: page.end() };
}

const tricky = {
  kind: 'SecretList',
  apiVersion: 'v1',
  metadata: { resourceVersion: '42', continue: 'tok"en\\' },
  items: [
    { metadata: { name: 'a', annotations: { 'x/items': '[{"items":[1,2]}]', q: 'say \\"hi\\" \\\\' } } },
    { metadata: { name: 'b—ü€', labels: { items: 'items' } }, data: { k: 'a\\\\\\"b]}' } },
    { metadata: { name: 'c' }, list: [[], {}, [{}], 'x,y', null, 1.5e3] },
  ],
  after: { items: ['not', 'these'] },
};

describe('ListItems', () => {
  it('hands on each item and returns the rest of the document, wherever the chunks are cut', () => {
    const bytes = Buffer.from(JSON.stringify(tricky));
    const { items: _items, ...rest } = tricky;
    for (let cut = 0; cut <= bytes.length; cut += 1) {
      const got = read(bytes, [cut]);
      expect(got.items).toEqual(tricky.items);
      expect(got.document).toEqual({ ...rest, items: [] });
    }
    // Every byte its own chunk: escapes and multi-byte characters cut everywhere.
    const single = read(bytes, [...bytes.keys()].slice(1));
    expect(single.items).toEqual(tricky.items);
  });

  it('reads the items of pretty-printed JSON and an empty items array', () => {
    const pretty = Buffer.from(JSON.stringify(tricky, null, 2));
    expect(read(pretty, [7, 300]).items).toEqual(tricky.items);
    const empty = read(Buffer.from('{"kind":"List","items":[ ],"metadata":{}}'), []);
    expect(empty).toEqual({ items: [], document: { kind: 'List', items: [], metadata: {} } });
  });

  it('returns a document without a top-level items array whole', () => {
    const status = { kind: 'Status', details: { items: [1] }, message: 'items' };
    expect(read(Buffer.from(JSON.stringify(status)), [10])).toEqual({ items: [], document: status });
  });

  it('hands each item on before the rest of the page has come', () => {
    const items: unknown[] = [];
    const page = new ListItems((item) => items.push(item));
    page.write(Buffer.from('{"metadata":{},"items":[{"n":1},{"n":'));
    expect(items).toEqual([{ n: 1 }]);
    page.write(Buffer.from('2}]}'));
    expect(items).toEqual([{ n: 1 }, { n: 2 }]);
  });

  it('refuses a truncated or unbalanced document and an item that is not JSON', () => {
    const cut = new ListItems(() => {});
    cut.write(Buffer.from('{"items":[{"a":1}'));
    expect(() => cut.end()).toThrow(SyntaxError);
    expect(() => new ListItems(() => {}).write(Buffer.from('{}}'))).toThrow(SyntaxError);
    expect(() => new ListItems(() => {}).write(Buffer.from('{"items":[{a:1},'))).toThrow(SyntaxError);
  });

  it('passes on a throw of the item handler', () => {
    const page = new ListItems(() => {
      throw new Error('refused');
    });
    expect(() => page.write(Buffer.from('{"items":[{},'))).toThrow('refused');
  });
});
