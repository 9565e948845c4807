import type { ResourceSpecRecord } from '../contract/index.ts';
import { DEFAULT_MIN_SCALE, LIMIT_FACTOR, LIMITS, type ResourceDefaults } from './defaults.ts';
import { invalidSpec } from './errors.ts';
import { cpuQuantity, memoryQuantity } from './quantities.ts';

/** Requests and limits of one container, as canonical quantities. */
export interface ResourceRequirements {
  limits: { cpu: string; memory: string };
  requests: { cpu: string; memory: string };
}

/** The ResourceSpec field names of one workload's resources (`cpu`, `queue_cpu`, ...). */
export interface ResourceFields {
  cpu: keyof ResourceSpecRecord;
  cpuLimit: keyof ResourceSpecRecord;
  memory: keyof ResourceSpecRecord;
  memoryLimit: keyof ResourceSpecRecord;
}

/** The field names of a workload with prefix `p` (`''` for the main service). */
export function resourceFields(
  p: '' | 'queue_' | 'orchestrator_' | 'executor_' | 'redis_' | 'db_',
): ResourceFields {
  return {
    cpu: `${p}cpu` as keyof ResourceSpecRecord,
    cpuLimit: `${p}cpu_limit` as keyof ResourceSpecRecord,
    memory: `${p}memory_mb` as keyof ResourceSpecRecord,
    memoryLimit: `${p}memory_limit_mb` as keyof ResourceSpecRecord,
  };
}

/** A positive finite number no larger than `max`, or undefined when absent. */
export function readNumber(spec: ResourceSpecRecord, field: string, max: number): number | undefined {
  const v = (spec as Record<string, unknown>)[field];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'number' || !Number.isFinite(v) || v <= 0) {
    throw invalidSpec(field, `${field} must be a positive number`);
  }
  if (v > max) throw invalidSpec(field, `${field} (${v}) must be <= ${max}`);
  return v;
}

/**
 * Requests and limits of one workload. An absent request is the default, or the limit when the
 * limit is lower; an absent limit is `LIMIT_FACTOR` times the request. A limit below its request is
 * an error naming both fields.
 */
export function resolveResources(
  spec: ResourceSpecRecord,
  f: ResourceFields,
  d: ResourceDefaults,
): ResourceRequirements {
  const cpuLimitIn = readNumber(spec, f.cpuLimit, LIMITS.maxCpuCores);
  const cpuIn = readNumber(spec, f.cpu, LIMITS.maxCpuCores);
  const memLimitIn = readNumber(spec, f.memoryLimit, LIMITS.maxMemoryMb);
  const memIn = readNumber(spec, f.memory, LIMITS.maxMemoryMb);
  const cpu = cpuIn ?? (cpuLimitIn !== undefined ? Math.min(d.cpu, cpuLimitIn) : d.cpu);
  const memory = memIn ?? (memLimitIn !== undefined ? Math.min(d.memoryMb, memLimitIn) : d.memoryMb);
  const cpuLimit = cpuLimitIn ?? cpu * LIMIT_FACTOR;
  const memoryLimit = memLimitIn ?? memory * LIMIT_FACTOR;
  if (cpuLimit < cpu)
    throw invalidSpec(f.cpuLimit, `${f.cpuLimit} (${cpuLimit}) must be >= ${f.cpu} (${cpu})`);
  if (memoryLimit < memory) {
    throw invalidSpec(f.memoryLimit, `${f.memoryLimit} (${memoryLimit}) must be >= ${f.memory} (${memory})`);
  }
  return {
    limits: { cpu: cpuQuantity(cpuLimit), memory: memoryQuantity(memoryLimit) },
    requests: { cpu: cpuQuantity(cpu), memory: memoryQuantity(memory) },
  };
}

/** The replica range of one workload. */
export interface Scale {
  min: number;
  max: number;
}

/** Reads a replica count: a whole number in 0..LIMITS.maxReplicas. */
function readScale(spec: ResourceSpecRecord, field: string): number | undefined {
  const v = (spec as Record<string, unknown>)[field];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0) {
    throw invalidSpec(field, `${field} must be a whole number >= 0`);
  }
  if (v > LIMITS.maxReplicas) throw invalidSpec(field, `${field} (${v}) must be <= ${LIMITS.maxReplicas}`);
  return v;
}

/**
 * min defaults to `DEFAULT_MIN_SCALE` (or max, when max is lower); max defaults to min. min above
 * max is an error naming both.
 */
export function resolveScale(spec: ResourceSpecRecord, minField: string, maxField: string): Scale {
  const maxIn = readScale(spec, maxField);
  const minIn = readScale(spec, minField);
  const min = minIn ?? (maxIn !== undefined ? Math.min(DEFAULT_MIN_SCALE, maxIn) : DEFAULT_MIN_SCALE);
  const max = maxIn ?? min;
  if (min > max) throw invalidSpec(minField, `${minField} (${min}) must be <= ${maxField} (${max})`);
  return { min, max };
}
