/**
 * Reads kubectl's human-readable table output back into rows keyed by column header. Columns are
 * cut at the header's positions, so empty cells (a Pending claim's VOLUME) and cells with spaces
 * (RESTARTS `3 (20d ago)`, header `LAST SEEN`) come back as kubectl printed them.
 */
export interface PrintedTable {
  header: string[];
  rows: Record<string, string>[];
}

/**
 * Parses `stdout` whose header must be exactly `columns` (in order, separated by kubectl's padding);
 * throws when the header differs, which is what a column assertion wants to see.
 */
export function printedTable(stdout: string, columns: string[]): PrintedTable {
  const lines = stdout.split('\n').filter((l) => l.trim() !== '');
  const head = lines[0] ?? '';
  const expected = new RegExp(`^${columns.map((c) => c.replace(/[()]/g, '\\$&')).join('\\s{2,}')}\\s*$`);
  if (!expected.test(head)) throw new Error(`header ${JSON.stringify(head)} is not ${columns.join(' | ')}`);
  const starts: number[] = [];
  let from = 0;
  for (const c of columns) {
    const at = head.indexOf(c, from);
    starts.push(at);
    from = at + c.length;
  }
  const rows = lines.slice(1).map((line) => {
    const row: Record<string, string> = {};
    columns.forEach((c, i) => {
      const end = i + 1 < starts.length ? starts[i + 1] : line.length;
      row[c] = line.slice(starts[i], end).trim();
    });
    return row;
  });
  return { header: columns, rows };
}
