import { Secret, Service } from 'kubernetes-models/v1';
import { Deployment, StatefulSet } from 'kubernetes-models/apps/v1';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1';
import { Ingress, NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1';
import { HTTPRoute } from '@kubernetes-models/gateway-api/gateway.networking.k8s.io/v1';
import type { KubeObject } from '../../src/render/index.ts';

type Model = new (data: never) => { validate(): void };

/** Every kind the renderer may produce, by `apiVersion/kind`. */
const MODELS: Record<string, Model> = {
  'v1/Secret': Secret,
  'v1/Service': Service,
  'apps/v1/Deployment': Deployment,
  'apps/v1/StatefulSet': StatefulSet,
  'autoscaling/v2/HorizontalPodAutoscaler': HorizontalPodAutoscaler,
  'policy/v1/PodDisruptionBudget': PodDisruptionBudget,
  'networking.k8s.io/v1/NetworkPolicy': NetworkPolicy,
  'networking.k8s.io/v1/Ingress': Ingress,
  'gateway.networking.k8s.io/v1/HTTPRoute': HTTPRoute,
};

/** Validates an object against the official schema; throws with its id and the problem. */
export function validateObject(object: KubeObject): void {
  const id = `${object.kind}/${object.metadata.namespace}/${object.metadata.name}`;
  const model = MODELS[`${object.apiVersion}/${object.kind}`];
  if (!model) throw new Error(`${id}: no model for ${object.apiVersion} ${object.kind}`);
  try {
    // A deep copy: the models may default fields in place.
    new model(structuredClone(object) as never).validate();
  } catch (err) {
    throw new Error(`${id}: ${(err as Error).message}`);
  }
}
