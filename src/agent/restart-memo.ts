/**
 * The restart memo (ADR 0010): what the leader found converged, kept across a restart in one
 * ConfigMap of its own namespace (a few past 1 MiB), so that a restart on a converged cluster
 * neither renders nor compares what nobody changed while it was down. A snapshot says "deployment
 * D, rendered from input key K, was converged when its objects had these versions"; loaded, it
 * fills the apply memo and the cold passes, and the resync's shortcut still checks every listed
 * object's version against it, so an object edited, deleted or added while the agent was down is
 * compared and repaired as before. Sealed with a key derived from the API key (AES-256-GCM): its
 * input keys are digests of records that hold secret values, and whoever can write ConfigMaps in
 * the agent's namespace must not make it skip a repair. Trusted only when it opens and its
 * fingerprint (the agent's code and settings) matches: anything else is ignored, and the start
 * judges the listing as without one.
 */
import { createCipheriv, createDecipheriv, hash, hkdfSync, randomBytes } from 'node:crypto';
import { gunzipSync, gzipSync } from 'node:zlib';
import { z } from 'zod';
import type { Verified } from '../kube/observed-state.ts';
import type { ColdPass } from './cold-start.ts';
import type { KnownRevision } from '../reconcile/desired-resolver.ts';

/**
 * One ConfigMap's value is at most 1 MiB; this leaves room for the rest of the object. A store
 * that holds more (the kube store, in parts) says so (`RestartMemoStore.maxBytes`).
 */
export const MAX_SNAPSHOT_BYTES = 900 * 1024;
/** A stored snapshot larger than this is not opened (six parts of 900 KiB are 5.4 MB). */
const MAX_OPENED_BYTES = 16 * 1024 * 1024;
/** A snapshot never inflates past this (a hostile one could be a gzip bomb). */
const MAX_INFLATED_BYTES = 64 * 1024 * 1024;

/** What a restart takes over: the memo's entries and the converged passes, by deployment. */
export interface RestartMemo {
  memo: Map<string, Verified>;
  passes: Map<string, ColdPass>;
  /** The final revisions the deployments ran, by id: status and digest, so a poll reads none again. */
  revisions: Map<string, KnownRevision>;
}

const Entry = z.tuple([
  z.string().min(1), // deployment id
  z.string().min(1), // input key
  z.string().min(1), // namespace
  z.array(z.string()), // claim prefixes
  z.array(z.tuple([z.string().min(1), z.string().min(1)])), // [object id, version]
  // [revision id, status, digest] of its final revisions (latest, active): never their content
  z.array(z.tuple([z.string().min(1), z.string().min(1), z.string().min(1)])),
]);
/** The document once its entries were taken (`parseTakingEntries`): every one of them taken. */
const Document = z.object({ v: z.literal(2), fingerprint: z.string(), deployments: z.tuple([]) });
type Entry = z.infer<typeof Entry>;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPENERS: ReadonlySet<number> = new Set([0x5b, 0x7b]); // [ {
const CLOSERS: ReadonlySet<number> = new Set([0x5d, 0x7d]); // ] }
/** What may stand between two entries: a comma and JSON's whitespace. */
const BETWEEN: ReadonlySet<number> = new Set([0x2c, 0x20, 0x0a, 0x0d, 0x09]);

/** Throws unless `json` holds nothing but commas and whitespace from `from` to `to` (excluded). */
function onlyCommas(json: Buffer, from: number, to: number): void {
  for (let i = from; i < to; i += 1) {
    if (!BETWEEN.has(json[i] as number)) throw new Error('restart memo: a value that is not an entry');
  }
}

/**
 * The snapshot's JSON `json` (the document `sealMemo` writes, an object whose one array is
 * `deployments`) parsed one entry at a time: each element of that array is parsed alone and
 * handed to `take`, so that neither the document's text nor its whole parse is ever on the heap:
 * both came on top of the memo's maps while the restart's first poll was parsing every record
 * (bench/README.md, issue 40). Returns the rest of the document, its `deployments` empty; throws
 * on an entry that is not valid, on anything else among the entries, or on JSON that is not.
 */
export function parseTakingEntries(json: Buffer, take: (entry: Entry) => void): unknown {
  let depth = 0;
  let inString = false;
  let arrayAt = -1;
  let arrayEnd = -1;
  let entryAt = -1;
  /** Where the latest entry (or the array's opening) ended. */
  let lastEnd = -1;
  for (let i = 0; i < json.length; i += 1) {
    const c = json[i] as number;
    if (inString) {
      if (c === BACKSLASH) i += 1;
      else if (c === QUOTE) inString = false;
    } else if (c === QUOTE) {
      inString = true;
    } else if (OPENERS.has(c)) {
      depth += 1;
      // The document is an object (depth 1); its array (depth 2) is the deployments', its
      // elements (depth 3) the entries.
      if (depth === 2 && arrayAt < 0) {
        arrayAt = i;
        lastEnd = i;
      } else if (depth === 3 && arrayEnd < 0 && arrayAt >= 0) {
        onlyCommas(json, lastEnd + 1, i);
        entryAt = i;
      }
    } else if (CLOSERS.has(c)) {
      if (depth === 3 && entryAt >= 0) {
        take(Entry.parse(JSON.parse(json.toString('utf8', entryAt, i + 1))));
        entryAt = -1;
        lastEnd = i;
      } else if (depth === 2 && arrayAt >= 0 && arrayEnd < 0) {
        onlyCommas(json, lastEnd + 1, i);
        arrayEnd = i;
      }
      depth -= 1;
    }
  }
  if (arrayAt < 0 || arrayEnd < 0) return JSON.parse(json.toString());
  // The document less its entries: what the schema checks.
  return JSON.parse(`${json.toString('utf8', 0, arrayAt + 1)}${json.toString('utf8', arrayEnd)}`);
}

/** One entry into what a restart takes over. */
function take(out: RestartMemo, [id, key, namespace, claimPrefixes, objects, revisions]: Entry): void {
  out.passes.set(id, { key, objects: objects.length, claimPrefixes, namespace });
  for (const [objectId, version] of objects) out.memo.set(objectId, { key, version });
  for (const [revisionId, status, digest] of revisions)
    out.revisions.set(revisionId, { id: revisionId, status, digest });
}

/**
 * The snapshot's entries: each pass whose objects the memo holds, all of them, at its key and in
 * its namespace (anything less is left out, and judged at the next start). Sorted, so that an
 * unchanged state gives the same bytes.
 */
export function snapshotEntries(
  memo: Iterable<[string, Verified]>,
  passes: Iterable<readonly [string, ColdPass]>,
  revisionsOf: (deploymentId: string) => readonly KnownRevision[] = () => [],
): Entry[] {
  const byKey = new Map<string, [string, string][]>();
  for (const [id, v] of memo) {
    const list = byKey.get(v.key);
    if (list) list.push([id, v.version]);
    else byKey.set(v.key, [[id, v.version]]);
  }
  const out: Entry[] = [];
  for (const [id, pass] of passes) {
    const objects = byKey.get(pass.key) ?? [];
    const inNamespace = (objectId: string) => objectId.split('/')[1] === pass.namespace;
    if (objects.length !== pass.objects || !objects.every(([o]) => inNamespace(o))) continue;
    objects.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
    const revisions = revisionsOf(id).map((r): [string, string, string] => [r.id, r.status, r.digest]);
    out.push([id, pass.key, pass.namespace, [...pass.claimPrefixes], objects, revisions]);
  }
  return out.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
}

/** The sealing key: derived from the API key, for this use only. */
const keyOf = (secret: string): Buffer =>
  Buffer.from(hkdfSync('sha256', secret, '', 'mooring restart memo v1', 32));
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** `[iv | tag | AES-256-GCM(plain)]` under the key derived from `secret`. */
export function seal(secret: string, plain: Buffer): Buffer {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', keyOf(secret), iv);
  const body = Buffer.concat([cipher.update(plain), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), body]);
}

/** What `seal` sealed, or undefined when it was sealed with another key or changed since. */
function open(secret: string, sealed: Buffer): Buffer | undefined {
  if (sealed.length < IV_BYTES + TAG_BYTES) return undefined;
  try {
    const decipher = createDecipheriv('aes-256-gcm', keyOf(secret), sealed.subarray(0, IV_BYTES));
    decipher.setAuthTag(sealed.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
    return Buffer.concat([decipher.update(sealed.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]);
  } catch {
    return undefined;
  }
}

/** A snapshot as written. */
export interface SealedMemo {
  data: Buffer;
  /** A digest of what was sealed: the same state gives the same digest (the IV differs each time). */
  digest: string;
  /** How many deployments it holds (fewer than offered when the whole did not fit). */
  deployments: number;
}

/**
 * Deployments written and compressed at a time: the snapshot's text is never whole on the heap
 * (about 12 MB at 10,000 deployments, when the heap may have less to spare). Each batch is a gzip
 * member of its own; the members put together are one gzip stream.
 */
const BATCH = 64;

/**
 * The snapshot of `entries`, sealed, within MAX_SNAPSHOT_BYTES: when the whole does not fit, the
 * first deployments that do, by batches (the rest are judged at the next start); an empty one
 * replaces a stale one. Undefined only when even that does not fit (a tiny `maxBytes`).
 */
export function sealMemo(
  entries: readonly Entry[],
  o: { secret: string; fingerprint: string; maxBytes?: number },
): SealedMemo | undefined {
  const max = (o.maxBytes ?? MAX_SNAPSHOT_BYTES) - IV_BYTES - TAG_BYTES;
  const head = `{"v":2,"fingerprint":${JSON.stringify(o.fingerprint)},"deployments":[`;
  const members = [gzipSync(head)];
  const tail = gzipSync(']}');
  let size = (members[0]?.length ?? 0) + tail.length;
  let count = 0;
  for (let i = 0; i < entries.length; i += BATCH) {
    const text = entries
      .slice(i, i + BATCH)
      .map((e) => JSON.stringify(e))
      .join(',');
    const member = gzipSync(i === 0 ? text : `,${text}`);
    if (size + member.length > max) break;
    members.push(member);
    size += member.length;
    count = Math.min(entries.length, i + BATCH);
  }
  members.push(tail);
  // None fits: the empty snapshot in one member, the smallest there is.
  const plain = count > 0 ? Buffer.concat(members) : gzipSync(`${head}]}`);
  if (plain.length > max) return undefined;
  return { data: seal(o.secret, plain), digest: hash('sha256', plain, 'base64url'), deployments: count };
}

/** Why a stored snapshot was not taken over (logged; the start then judges the listing). */
export type MemoRefusal = 'seal' | 'fingerprint' | 'size' | 'format';

/**
 * The restart memo sealed in `data`, with the digest of what was sealed, when it opens and its
 * fingerprint matches; else why not. A memo of another build (`fingerprint`) still says how many
 * objects the cluster held (`objectsOfAnotherBuild`): a size only, nothing of it is used.
 */
export function openMemo(
  data: Buffer,
  o: { secret: string; fingerprint: string; objectsOfAnotherBuild?: (objects: number) => void },
): (RestartMemo & { digest: string }) | MemoRefusal {
  if (data.length > MAX_OPENED_BYTES) return 'size';
  const plain = open(o.secret, data);
  if (!plain) return 'seal';
  const out = {
    memo: new Map<string, Verified>(),
    passes: new Map<string, ColdPass>(),
    revisions: new Map<string, KnownRevision>(),
    digest: hash('sha256', plain, 'base64url'),
  };
  let doc: z.infer<typeof Document>;
  try {
    const json = gunzipSync(plain, { maxOutputLength: MAX_INFLATED_BYTES });
    doc = Document.parse(parseTakingEntries(json, (e) => take(out, e)));
  } catch {
    return 'format';
  }
  if (doc.fingerprint !== o.fingerprint) {
    o.objectsOfAnotherBuild?.(out.memo.size);
    return 'fingerprint';
  }
  return out;
}
