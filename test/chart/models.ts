/**
 * Validates rendered objects: built-in kinds against the official schemas (kubernetes-models),
 * the ServiceMonitor and PrometheusRule (CRDs the models do not know) against the shapes Prometheus
 * Operator reads.
 */
import { ConfigMap, Namespace, Pod, ServiceAccount, Secret, Service } from 'kubernetes-models/v1';
import { Deployment } from 'kubernetes-models/apps/v1';
import { Role, RoleBinding } from 'kubernetes-models/rbac.authorization.k8s.io/v1';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1';
import { NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1';
import { z } from 'zod';
import type { KubeObject } from './helm.ts';

type Model = new (data: never) => { validate(): void };

/** Every kind the chart may render, by `apiVersion/kind`. */
const MODELS: Record<string, Model> = {
  'v1/ConfigMap': ConfigMap,
  'v1/Namespace': Namespace,
  'v1/Pod': Pod,
  'v1/ServiceAccount': ServiceAccount,
  'v1/Secret': Secret,
  'v1/Service': Service,
  'apps/v1/Deployment': Deployment,
  'rbac.authorization.k8s.io/v1/Role': Role,
  'rbac.authorization.k8s.io/v1/RoleBinding': RoleBinding,
  'policy/v1/PodDisruptionBudget': PodDisruptionBudget,
  'networking.k8s.io/v1/NetworkPolicy': NetworkPolicy,
};

const labelMap = z.record(z.string(), z.string());
const duration = z.string().regex(/^(\d+(ms|s|m|h))+$/, 'a Prometheus duration such as 30s');

/** The part of monitoring.coreos.com/v1 ServiceMonitor the chart uses; unknown fields refused. */
export const serviceMonitorShape = z.strictObject({
  apiVersion: z.literal('monitoring.coreos.com/v1'),
  kind: z.literal('ServiceMonitor'),
  metadata: z.strictObject({ name: z.string().min(1), namespace: z.string().min(1), labels: labelMap }),
  spec: z.strictObject({
    selector: z.strictObject({ matchLabels: labelMap }),
    namespaceSelector: z.strictObject({ matchNames: z.array(z.string().min(1)).min(1) }),
    endpoints: z
      .array(
        z.strictObject({
          port: z.string().min(1),
          path: z.string().startsWith('/'),
          interval: duration,
          scrapeTimeout: duration,
        }),
      )
      .min(1),
  }),
});

/** The part of monitoring.coreos.com/v1 PrometheusRule the chart uses; unknown fields refused. */
export const prometheusRuleShape = z.strictObject({
  apiVersion: z.literal('monitoring.coreos.com/v1'),
  kind: z.literal('PrometheusRule'),
  metadata: z.strictObject({ name: z.string().min(1), namespace: z.string().min(1), labels: labelMap }),
  spec: z.strictObject({
    groups: z
      .array(
        z.strictObject({
          name: z.string().min(1),
          rules: z
            .array(
              z.strictObject({
                alert: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/),
                expr: z.string().min(1),
                for: duration.optional(),
                labels: labelMap,
                annotations: z
                  .strictObject({ summary: z.string(), description: z.string(), runbook_url: z.url() })
                  .required(),
              }),
            )
            .min(1),
        }),
      )
      .min(1),
  }),
});

/** The Prometheus Operator kinds, checked by shape. */
const CRD_SHAPES: Record<string, z.ZodType> = {
  ServiceMonitor: serviceMonitorShape,
  PrometheusRule: prometheusRuleShape,
};

/** Throws with the object's id and the first problem when it does not validate. */
export function validateObject(object: KubeObject): void {
  const id = `${object.kind}/${object.metadata?.namespace ?? ''}/${object.metadata?.name}`;
  const shape = CRD_SHAPES[object.kind];
  if (shape) {
    const res = shape.safeParse(object);
    if (!res.success)
      throw new Error(`${id}: ${res.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`)}`);
    return;
  }
  const model = MODELS[`${object.apiVersion}/${object.kind}`];
  if (!model) throw new Error(`${id}: no model for ${object.apiVersion} ${object.kind}`);
  try {
    new model(object as never).validate();
  } catch (err) {
    throw new Error(`${id}: ${(err as Error).message}`);
  }
}
