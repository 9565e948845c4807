import { z } from 'zod';
import type { Builders } from './mode.ts';

/**
 * ResourceSpec (2.8) and its parts: Container, VolumeMount, Volume. CPU numbers are cores
 * (fractions allowed), memory numbers MiB, storage GiB. Range checks here are the wire's; rules
 * across fields (a limit below its request) belong to the renderer, which names fields in its errors.
 */
export function resourceSpecSchemas(b: Builders) {
  const cores = z.number().positive();
  const mib = z.number().positive();
  const scale = z.number().int().nonnegative();
  // zod's records skip an own `__proto__` key, so it would vanish silently (a caller would get
  // back less than it sent): refuse it instead. No Kubernetes key can be `__proto__`.
  const record = <V extends z.ZodType>(value: V) =>
    z
      .custom<unknown>(
        (v) => !(v !== null && typeof v === 'object' && Object.hasOwn(v, '__proto__')),
        'the key "__proto__" is not allowed',
      )
      .pipe(z.record(z.string(), value));
  const freeObject = record(z.unknown());
  const stringMap = record(z.string());

  const VolumeMount = b.obj({
    name: z.string().min(1),
    mountPath: z.string().min(1),
    subPath: z.string().nullish(),
    mountPropagation: z.string().nullish(),
    readOnly: z.boolean().nullish(),
    subPathExpr: z.string().nullish(),
  });

  const EnvVar = b.obj({
    name: z.string().min(1),
    value: z.string().nullish(),
    valueFrom: freeObject.nullish(),
  });

  const Container = b.obj({
    name: z.string().min(1),
    image: z.string().nullish(),
    imagePullPolicy: z.string().nullish(),
    command: z.array(z.string()).nullish(),
    args: z.array(z.string()).nullish(),
    workingDir: z.string().nullish(),
    env: z.array(EnvVar).nullish(),
    envFrom: z.array(freeObject).nullish(),
    resources: b
      .obj({
        limits: record(z.union([z.string(), z.number()])).nullish(),
        requests: record(z.union([z.string(), z.number()])).nullish(),
      })
      .nullish(),
    volumeMounts: z.array(VolumeMount).nullish(),
    securityContext: freeObject.nullish(),
    restartPolicy: z.string().nullish(),
  });

  // Volume sources are free-form objects; other Kubernetes volume types (hostPath...) are kept in
  // both modes so that policy, not parsing, decides about them and names them in its error.
  const Volume = z.looseObject({
    name: z.string().min(1),
    configMap: freeObject.nullish(),
    secret: freeObject.nullish(),
    emptyDir: freeObject.nullish(),
    persistentVolumeClaim: freeObject.nullish(),
    nfs: freeObject.nullish(),
    projected: freeObject.nullish(),
    downwardAPI: freeObject.nullish(),
    csi: freeObject.nullish(),
  });

  const ImagePullSecret = b.obj({ name: z.string().min(1) });

  const ResourceSpec = b.obj({
    // main service
    min_scale: scale.nullish(),
    max_scale: scale.nullish(),
    cpu: cores.nullish(),
    cpu_limit: cores.nullish(),
    memory_mb: mib.nullish(),
    memory_limit_mb: mib.nullish(),
    // queue
    queue_min_scale: scale.nullish(),
    queue_max_scale: scale.nullish(),
    queue_cpu: cores.nullish(),
    queue_cpu_limit: cores.nullish(),
    queue_memory_mb: mib.nullish(),
    queue_memory_limit_mb: mib.nullish(),
    // orchestrator
    orchestrator_cpu: cores.nullish(),
    orchestrator_cpu_limit: cores.nullish(),
    orchestrator_memory_mb: mib.nullish(),
    orchestrator_memory_limit_mb: mib.nullish(),
    orchestrator_min_scale: scale.nullish(),
    orchestrator_max_scale: scale.nullish(),
    // executor
    executor_cpu: cores.nullish(),
    executor_cpu_limit: cores.nullish(),
    executor_memory_mb: mib.nullish(),
    executor_memory_limit_mb: mib.nullish(),
    // cache
    redis_cpu: cores.nullish(),
    redis_cpu_limit: cores.nullish(),
    redis_memory_mb: mib.nullish(),
    redis_memory_limit_mb: mib.nullish(),
    // database
    db_cpu: cores.nullish(),
    db_cpu_limit: cores.nullish(),
    db_memory_mb: mib.nullish(),
    db_memory_limit_mb: mib.nullish(),
    db_storage_gi: z.number().positive().nullish(),
    db_max_connections: z.number().int().positive().nullish(),
    // metadata
    labels: stringMap.nullish(),
    annotations: stringMap.nullish(),
    service_account_name: z.string().nullish(),
    image_pull_secrets: z.array(ImagePullSecret).nullish(),
    volumes: z.array(Volume).nullish(),
    volume_mounts: z.array(VolumeMount).nullish(),
    init_containers: z.array(Container).nullish(),
    sidecars: z.array(Container).nullish(),
  });

  return { VolumeMount, EnvVar, Container, Volume, ImagePullSecret, ResourceSpec };
}
