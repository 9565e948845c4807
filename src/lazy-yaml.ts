/**
 * The YAML parser, loaded on first use: an agent in its cluster reads neither a kubeconfig nor a
 * settings file, and would otherwise pay the parser's 72 modules in memory and start-up time for
 * nothing (bench/README.md, "Measured decisions").
 */
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/** Parses YAML (or JSON) text as the `yaml` package's `parse` does, loading the package once. */
export function parseYaml(text: string): unknown {
  return (require('yaml') as typeof import('yaml')).parse(text);
}
