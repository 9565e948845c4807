/**
 * A small, fast, seedable PRNG (mulberry32). Chaos timings, benchmark inputs and anything else a
 * harness draws at random must repeat from a seed, so none of it may use Math.random.
 */

/** Returns a generator of floats in [0, 1), the same sequence for the same `seed`. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
