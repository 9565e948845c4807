import { HPA_CPU_UTILIZATION, PDB_MIN_AVAILABLE, PDB_MIN_SCALE } from './defaults.ts';
import { selectorLabels } from './labels.ts';
import type { Scale } from './resources.ts';
import type { Component } from './settings.ts';
import { type RenderedObject, meta, type RenderContext } from './types.ts';

/** Whether a workload is autoscaled: max above min, and not scaled to zero by status UNUSED. */
export function isAutoscaled(ctx: RenderContext, scale: Scale): boolean {
  return !ctx.scaledToZero && scale.max > scale.min;
}

/**
 * A HorizontalPodAutoscaler (autoscaling/v2) on CPU utilization. An HPA cannot scale to zero
 * (without the HPAScaleToZero feature gate), so its floor is at least 1.
 */
export function renderHpa(
  ctx: RenderContext,
  component: Component,
  target: string,
  scale: Scale,
): RenderedObject {
  return {
    apiVersion: 'autoscaling/v2',
    kind: 'HorizontalPodAutoscaler',
    metadata: meta(ctx, target, component),
    spec: {
      maxReplicas: scale.max,
      metrics: [
        {
          resource: { name: 'cpu', target: { averageUtilization: HPA_CPU_UTILIZATION, type: 'Utilization' } },
          type: 'Resource',
        },
      ],
      minReplicas: Math.max(1, scale.min),
      scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: target },
    },
  };
}

/** A PodDisruptionBudget (policy/v1) when the workload keeps at least `PDB_MIN_SCALE` replicas. */
export function renderPdb(
  ctx: RenderContext,
  component: Component,
  name: string,
  scale: Scale,
): RenderedObject | undefined {
  if (ctx.scaledToZero || scale.min < PDB_MIN_SCALE) return undefined;
  return {
    apiVersion: 'policy/v1',
    kind: 'PodDisruptionBudget',
    metadata: meta(ctx, name, component),
    spec: {
      minAvailable: PDB_MIN_AVAILABLE,
      selector: { matchLabels: selectorLabels(ctx.labels, component) },
    },
  };
}

/** The `replicas` of a workload: none when an HPA owns it, zero when scaled to zero. */
export function replicasField(ctx: RenderContext, scale: Scale): { replicas?: number } {
  if (ctx.scaledToZero) return { replicas: 0 };
  if (isAutoscaled(ctx, scale)) return {};
  return { replicas: scale.min };
}

/** The HPA and PDB a workload gets, if any. */
export function autoscaledObjects(
  ctx: RenderContext,
  component: Component,
  name: string,
  scale: Scale,
): RenderedObject[] {
  const out: RenderedObject[] = [];
  if (isAutoscaled(ctx, scale)) out.push(renderHpa(ctx, component, name, scale));
  const pdb = renderPdb(ctx, component, name, scale);
  if (pdb) out.push(pdb);
  return out;
}
