import fc from 'fast-check';

/**
 * Property tests run from a fixed seed so that `npm test` is repeatable: a failure seen once is
 * seen again, and CI never fails on a counterexample no one can reproduce. Explore new inputs
 * with `FC_SEED=random npm test` (or any number); fast-check prints the seed of a failure.
 */
const seed = process.env.FC_SEED;
if (seed !== 'random') fc.configureGlobal({ seed: seed ? Number(seed) : 20261122 });
