/** The interface document as code: the single source of truth for both ends. */
export * from './enums.ts';
export * from './query.ts';
export * from './schemas.ts';
export * from './tolerant-page.ts';
export type { Mode } from './mode.ts';
