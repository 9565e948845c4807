/**
 * Who wrote what, from the sandbox's request log: every agent replica names itself in its
 * User-Agent (`mooring/<version> (<identity>)`), so each write the API server received can be
 * put down to the replica that sent it.
 */
import type { RequestRecord } from '../../src/sandbox/server.ts';

/** One write request the API server received for an object. */
export interface ObjectWrite {
  /** The replica's identity, from its User-Agent. */
  writer: string;
  /** When the request arrived (ms since the epoch). */
  at: number;
  /** When the API server was done with it (applied or refused); `at` while it is not. */
  done: number;
  verb: string;
  /** The answer's status (0: the connection was dropped before an answer). */
  status: number;
}

/** The identity in a mooring User-Agent, or undefined for any other client (kubectl, a test). */
export function writerOf(userAgent: string | undefined): string | undefined {
  const m = /^mooring\/\S+ \((.+)\)$/.exec(userAgent ?? '');
  return m?.[1];
}

/** `<Kind>/<namespace>/<name>`: how the helpers here name an object. */
export function objectKey(kind: string, namespace: string | undefined, name: string): string {
  return `${kind}/${namespace ?? ''}/${name}`;
}

/**
 * Every object written by a mooring replica, with its writes in arrival order. Dry runs change
 * nothing and are left out; failed and dropped writes stay in (a replica that should not write
 * must not even try). `kinds`, when given, keeps only those kinds.
 */
export function writesByObject(
  records: readonly RequestRecord[],
  kinds?: ReadonlySet<string>,
): Map<string, ObjectWrite[]> {
  const out = new Map<string, ObjectWrite[]>();
  for (const r of records) {
    if (!r.write || r.dryRun || r.name === undefined || r.kind === undefined) continue;
    if (kinds && !kinds.has(r.kind)) continue;
    const writer = writerOf(r.userAgent);
    if (writer === undefined) continue;
    const key = objectKey(r.kind, r.namespace, r.name);
    const list = out.get(key) ?? [];
    const at = Date.parse(r.time);
    list.push({ writer, at, done: r.endTime ? Date.parse(r.endTime) : at, verb: r.verb, status: r.status });
    out.set(key, list);
  }
  for (const list of out.values()) list.sort((a, b) => a.at - b.at);
  return out;
}

/** Per object, the replicas that wrote it (sorted). */
export function writersByObject(writes: ReadonlyMap<string, readonly ObjectWrite[]>): Map<string, string[]> {
  return new Map(
    [...writes].map(([key, list]) => [key, [...new Set(list.map((w) => w.writer))].sort()] as const),
  );
}

/** Per replica, how many distinct objects it wrote. */
export function objectsPerWriter(writes: ReadonlyMap<string, readonly ObjectWrite[]>): Map<string, number> {
  const out = new Map<string, number>();
  for (const writers of writersByObject(writes).values())
    for (const w of writers) out.set(w, (out.get(w) ?? 0) + 1);
  return out;
}
