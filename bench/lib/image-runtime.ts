/**
 * How the image runs Node, read from the Dockerfile, so that the benchmarked agent runs as the
 * image does: the environment that decides how its memory is used, and the flags its ENTRYPOINT
 * gives `node` (V8 flags that NODE_OPTIONS may not carry).
 */

/** What the image sets in the agent's environment that decides how its memory is used. */
const IMAGE_RUNTIME_ENV = ['NODE_OPTIONS', 'MALLOC_ARENA_MAX'] as const;

/**
 * Those variables as the Dockerfile sets them (`ENV NAME="..."` or `ENV NAME=value`, one per
 * line), so that the benchmarked agent runs as the image does; absent ones are left out.
 */
export function imageRuntimeEnv(dockerfile: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of IMAGE_RUNTIME_ENV) {
    const m = new RegExp(`^ENV\\s+${name}=(?:"([^"]*)"|(\\S+))\\s*$`, 'm').exec(dockerfile);
    const value = m ? (m[1] ?? m[2]) : undefined;
    if (value !== undefined) env[name] = value;
  }
  return env;
}

/**
 * The flags the final ENTRYPOINT (exec form, `["node", flags..., script]`) passes to `node`
 * before the script; none for a shell-form ENTRYPOINT or one that does not start `node`.
 */
export function imageNodeFlags(dockerfile: string): string[] {
  const entrypoints = [...dockerfile.matchAll(/^ENTRYPOINT\s+(\[.*\])\s*$/gm)];
  const last = entrypoints.at(-1)?.[1];
  if (last === undefined) return [];
  let argv: unknown;
  try {
    argv = JSON.parse(last);
  } catch {
    return [];
  }
  if (!Array.isArray(argv) || argv[0] !== 'node') return [];
  const flags: string[] = [];
  for (const a of argv.slice(1)) {
    if (typeof a !== 'string' || !a.startsWith('-')) break;
    flags.push(a);
  }
  return flags;
}
