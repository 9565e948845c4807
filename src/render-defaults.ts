/**
 * The renderer's scalar defaults: the render settings start from them (render/settings.ts,
 * RENDER_SETTINGS_DEFAULTS), and the agent's flag table names them in `--help` (config/, which
 * must not depend on the renderer).
 */
export const RENDER_SCALAR_DEFAULTS = Object.freeze({
  redisImage: 'docker.io/library/redis:7.4-alpine',
  postgresImage: 'docker.io/library/postgres:16-alpine',
  clusterDomain: 'cluster.local',
  podSecurity: 'baseline',
} as const);
