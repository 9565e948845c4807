/**
 * The agent's settings (`mooring run`, `mooring diff`): one table drives parsing of flags and
 * environment, validation, and the `--help` text, so the three can never disagree. Flags win over
 * the environment. The parts live in config/: the table, the value schemas, parsing and help;
 * agent-config.ts adds the settings file and the render settings (config/ knows no renderer).
 */
export { type AgentConfig, type ConfigResult, parseAgentConfig } from './agent-config.ts';
export { configHelp } from './config/help.ts';
export type { ConfigSources } from './config/parse.ts';
export { AUTO_KUBE_QPS, SETTINGS } from './config/settings-table.ts';
