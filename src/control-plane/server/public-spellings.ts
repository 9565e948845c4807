import { z } from 'zod';
import { invalid } from './errors.ts';

/**
 * The public API spells a few words of the interface differently, and its clients send them
 * unchanged. The reference accepts these spellings on input and stores and answers in the
 * interface's own words (docs/control-plane.md, "Public spellings"): where the two disagree, the
 * interface wins. Nothing here is sent by the agent, whose requests stay within the interface.
 */

/** The hosted git provider's public name; the interface says `vcshost`. */
export const PUBLIC_PROVIDER_NAME = 'github';

/** Maps a source or revision source as the public API spells it to the interface's word. */
export function interfaceSource(value: unknown): unknown {
  return value === PUBLIC_PROVIDER_NAME ? 'vcshost' : value;
}

const TrackedPackages = z.array(z.string()).nullish();
const ConfigPath = z.string().nullish();

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/**
 * A deployment create or patch body in the interface's words: `github` becomes `vcshost` (in
 * `source` and `revision_source`), `source_revision_config.langgraph_config_path` becomes
 * `graph_config_path` (422 when both are given and differ), and the public deploy client's
 * `tracked_packages` (a list of package names it reports for usage statistics) is checked and
 * dropped: the reference keeps nothing of it. Anything else is left for the strict schema to judge.
 */
export function interfaceDeploymentBody(body: unknown): unknown {
  if (!isObject(body)) return body;
  const out: Record<string, unknown> = { ...body };
  if ('source' in out) out.source = interfaceSource(out.source);
  if ('revision_source' in out) out.revision_source = interfaceSource(out.revision_source);
  if ('tracked_packages' in out) {
    if (!TrackedPackages.safeParse(out.tracked_packages).success) {
      throw invalid(['body', 'tracked_packages'], 'Input should be a list of strings', 'list_type');
    }
    delete out.tracked_packages;
  }
  const revisionConfig = out.source_revision_config;
  if (isObject(revisionConfig) && 'langgraph_config_path' in revisionConfig) {
    const { langgraph_config_path: alias, ...rest } = revisionConfig;
    const loc = ['body', 'source_revision_config', 'langgraph_config_path'];
    if (!ConfigPath.safeParse(alias).success)
      throw invalid(loc, 'Input should be a valid string', 'string_type');
    const given = rest.graph_config_path;
    if (given !== undefined && given !== null && alias !== null && alias !== undefined && given !== alias) {
      throw invalid(loc, 'langgraph_config_path and graph_config_path name the same field and differ');
    }
    out.source_revision_config = { ...rest, graph_config_path: given ?? alias };
  }
  return out;
}
