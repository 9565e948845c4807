/**
 * The agent's settings (`mooring run`, `mooring diff`): one table drives parsing of flags and
 * environment, validation, and the `--help` text, so the three can never disagree. Flags win over
 * the environment. The parts live in config/: the table, the value schemas, parsing and help.
 */
export type { AgentConfig } from './config/agent-config.ts';
export { configHelp } from './config/help.ts';
export { type ConfigResult, type ConfigSources, parseAgentConfig } from './config/parse.ts';
export { AUTO_KUBE_QPS, SETTINGS } from './config/settings-table.ts';
