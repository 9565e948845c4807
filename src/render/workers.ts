import type { ResourceSpecRecord } from '../contract/index.ts';
import { renderAppWorkload, type checkSecretReferences } from './app.ts';
import { DEFAULT_MIN_SCALE } from './defaults.ts';
import { resourceDefaults } from './operator-defaults.ts';
import { resolveResources, resolveScale, resourceFields, type Scale } from './resources.ts';
import type { RenderedObject, RenderContext } from './types.ts';

/** The worker components: each is rendered only when one of its ResourceSpec fields is set. */
const WORKERS = [
  {
    component: 'queue',
    prefix: 'queue_',
    scale: ['queue_min_scale', 'queue_max_scale'],
  },
  {
    component: 'orchestrator',
    prefix: 'orchestrator_',
    scale: ['orchestrator_min_scale', 'orchestrator_max_scale'],
  },
  { component: 'executor', prefix: 'executor_', scale: undefined },
] as const;

const SUFFIXES = ['cpu', 'cpu_limit', 'memory_mb', 'memory_limit_mb', 'min_scale', 'max_scale'];

function hasAnyField(spec: ResourceSpecRecord, prefix: string): boolean {
  const s = spec as Record<string, unknown>;
  return SUFFIXES.some((suffix) => s[prefix + suffix] !== undefined && s[prefix + suffix] !== null);
}

/**
 * Queue, orchestrator and executor: Deployment `b-<component>` running the app's image with
 * `MOORING_COMPONENT=<component>`. The executor has no scale fields: it runs one replica.
 */
export function renderWorkers(
  ctx: RenderContext,
  references: ReturnType<typeof checkSecretReferences>,
): RenderedObject[] {
  const out: RenderedObject[] = [];
  for (const w of WORKERS) {
    if (!hasAnyField(ctx.spec, w.prefix)) continue;
    const scale: Scale = w.scale
      ? resolveScale(ctx.spec, w.scale[0], w.scale[1])
      : { min: DEFAULT_MIN_SCALE, max: DEFAULT_MIN_SCALE };
    const resources = resolveResources(
      ctx.spec,
      resourceFields(w.prefix),
      resourceDefaults(ctx.settings, w.component),
    );
    out.push(...renderAppWorkload(ctx, w.component, ctx.names[w.component], scale, resources, references));
  }
  return out;
}
