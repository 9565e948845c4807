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

/**
 * The image's `NODE_OPTIONS` heap flags with the old generation as an absolute size, for a Node
 * run outside a memory cgroup (a floor's client): `--max-old-space-size-percentage=P` of a
 * container limited to `limitMib` is `--max-old-space-size=floor(P% of limitMib)`, whatever the
 * machine's memory. The other heap flags (`--max-semi-space-size`) are kept as they are.
 */
export function absoluteHeapFlags(nodeOptions: string, limitMib: number): string[] {
  const flags: string[] = [];
  for (const flag of nodeOptions.split(/\s+/).filter(Boolean)) {
    const percent = /^--max-old-space-size-percentage=(\d+(?:\.\d+)?)$/.exec(flag);
    if (percent) flags.push(`--max-old-space-size=${Math.floor((Number(percent[1]) / 100) * limitMib)}`);
    else if (/^--max-(?:old|semi)-space-size=/.test(flag)) flags.push(flag);
  }
  return flags;
}
