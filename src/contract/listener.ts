import { z } from 'zod';
import { COMPUTE_TYPES } from './enums.ts';
import type { Builders } from './mode.ts';

/** Listener (2.4) and its request bodies (4.5; POST per docs/control-plane.md). */
export function listenerSchemas(b: Builders) {
  const ComputeConfig = b.obj({ k8s_namespaces: z.array(z.string().min(1)).nullish() });

  const Listener = b.obj({
    id: b.uuid(),
    compute_type: b.en(COMPUTE_TYPES),
    compute_id: z.string().min(1),
    compute_config: ComputeConfig.nullish(),
    created_at: b.dateTime(),
    updated_at: b.dateTime(),
    version: z.string().nullish(),
  });

  const ListenerCreate = b.obj({
    compute_type: b.en(COMPUTE_TYPES),
    compute_id: z.string().min(1).max(253),
    compute_config: ComputeConfig.nullish(),
    version: z.string().nullish(),
  });

  /** compute_type and compute_id cannot change: they are not part of the body. */
  const ListenerPatch = b.obj({
    version: z.string().nullish(),
    compute_config: ComputeConfig.nullish(),
  });

  return { ComputeConfig, Listener, ListenerCreate, ListenerPatch };
}
