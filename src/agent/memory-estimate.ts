/**
 * The estimate behind the memory budget (memory-budget.ts): what the agent's heap holds per
 * deployment and per object, and the container limit that gives V8 room for it. The chart's
 * sizing from sizing.expectedDeployments (_helpers.tpl) computes the same.
 */
const MIB = 1024 * 1024;

/**
 * What the agent's heap holds besides its data (code, libraries), and what each deployment (its
 * record, redactor forms, status, revisions) and each object (its apply memo entry and watch cache
 * entry) adds, measured with heap snapshots of converged and restarted agents of the bench and
 * checked against the idle agent's live heap at 10,000 deployments (bench/README.md, "Memory
 * budget"). Estimates, rounded up.
 */
export const HEAP_BASE_BYTES = 28 * MIB;
export const HEAP_PER_DEPLOYMENT_BYTES = 5 * 1024;
export const HEAP_PER_OBJECT_BYTES = 250;
/**
 * What one listed deployment record takes on the heap while a poll holds it (parsed): the room a
 * short heap keeps for each waiting deployment that may come back, its record parsed again.
 */
export const HEAP_PER_RECORD_BYTES = 4 * 1024;

/**
 * The heap a start needs beside what it takes back before its heap is steady again: its cold
 * listing's pages in flight, its restart memo opened, its first listing parsed. New deployments
 * are taken only while this much stays free under the old generation's ceiling, so that a restart
 * can hold again what the agent held: 10,000 deployments under 160 MiB held 83 of 96 MiB, and
 * their restart ran out of heap 9-10 MiB above that (bench/README.md, "A limit far too small").
 */
export const RESTART_HEADROOM_BYTES = 24 * MIB;

/** Objects per deployment the estimate takes before the cluster's listing is known (the bench's). */
export const BENCH_OBJECTS_PER_DEPLOYMENT = 12;
/** What a waiting deployment taken back adds to the heap: its record parsed again, and it taken. */
export const HEAP_TAKEN_BACK_BYTES =
  HEAP_PER_RECORD_BYTES + HEAP_PER_DEPLOYMENT_BYTES + BENCH_OBJECTS_PER_DEPLOYMENT * HEAP_PER_OBJECT_BYTES;

/**
 * What a listing of every owned object holds per object while it runs (its slim entries,
 * bench/README.md): a full resync is made only when that fits beside the live data, and a start's
 * listing is given up when it would not.
 */
export const LISTING_BYTES_PER_OBJECT = 450;

/**
 * What the orphan pass's own listing (made only when the cycle's listing failed or kept no
 * entries) holds per object: whole objects, compacted, all at once. A replica's such listing at
 * the end of its cold pass was a burst of about 250 MB for its 40,000 objects (bench/README.md),
 * and a restart of 10,000 deployments under 160 MiB ran out of heap making one.
 */
export const ORPHAN_LISTING_BYTES_PER_OBJECT = 6 * 1024;

/**
 * What a census of names (ADR 0007) holds per object listed: its name, uid, ownership labels and
 * managers. A restart of 10,000 deployments under 160 MiB took one for the few deployments it
 * took back, 17.7 MB for 62,000 objects in a heap snapshot at V8's limit (bench/README.md).
 */
export const CENSUS_BYTES_PER_OBJECT = 300;

/**
 * The share of the container's memory the image gives V8's old generation
 * (`--max-old-space-size-percentage` in the Dockerfile), and the live data's largest share of
 * that ceiling at which V8 still collects without spending its time at it.
 */
export const OLD_SPACE_SHARE = 0.6;
export const LIVE_SHARE = 0.75;

/**
 * What a container holds besides V8's old generation: the young generation the image allows
 * (three 4 MiB semi-spaces), and Node's own memory (its executable's pages, malloc, buffers),
 * from the cgroup's peak at 1,000 and 10,000 deployments under 256 MiB less their old generation
 * (bench/README.md).
 */
export const YOUNG_MIB = 12;
export const NODE_OWN_MIB = 64;

/**
 * The old generation's live bytes a listener of this size needs (an estimate): what the idle agent
 * holds, and room beside it for a start's listing of every object (LISTING_BYTES_PER_OBJECT each),
 * which a restart makes before its watches take over. Without that room a restart under the
 * limit gives its listing up and reconciles each deployment with lists of its own: it stays up,
 * but takes many minutes at 10,000 deployments (bench/README.md).
 */
export function heapNeeded(deployments: number, objects: number): number {
  return (
    HEAP_BASE_BYTES +
    deployments * HEAP_PER_DEPLOYMENT_BYTES +
    objects * (HEAP_PER_OBJECT_BYTES + LISTING_BYTES_PER_OBJECT)
  );
}

/**
 * The container memory limit that gives V8 room for `liveBytes` of data, rounded up to 32 MiB:
 * an old generation (its share of the limit) that the data fills to LIVE_SHARE at most, and
 * beside it the young generation and Node's own memory. In whole KiB and MiB, as the chart
 * computes it from sizing.expectedDeployments (_helpers.tpl).
 */
export function memoryLimitFor(liveBytes: number): number {
  const liveKib = Math.floor(liveBytes / 1024);
  const oldSpace = Math.floor((liveKib * 100) / (Math.round(LIVE_SHARE * 100) * 1024));
  const byShare = Math.floor((liveKib * 100) / (Math.round(LIVE_SHARE * OLD_SPACE_SHARE * 100) * 1024));
  const mib = Math.max(byShare, NODE_OWN_MIB + YOUNG_MIB + oldSpace);
  return Math.floor((mib + 31) / 32) * 32 * MIB;
}
