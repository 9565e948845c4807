/** Fault injection rules, matched per request by verb, resource and namespace. */
import { z } from 'zod';

export interface FaultRule {
  verb?: string;
  resource?: string;
  namespace?: string;
  status?: 500 | 429 | 409 | 503;
  retryAfterSeconds?: number;
  latencyMs?: number;
  dropConnection?: boolean;
  watchResetAfterMs?: number;
  probability?: number /* 0..1, default 1 */;
  count?: number /* how many times, default unlimited */;
}

/** The wire schema of `PUT /sandbox/v1/faults`. */
export const FaultRulesSchema = z.array(
  z.strictObject({
    verb: z.string().optional(),
    resource: z.string().optional(),
    namespace: z.string().optional(),
    status: z.union([z.literal(500), z.literal(429), z.literal(409), z.literal(503)]).optional(),
    retryAfterSeconds: z.number().int().min(0).optional(),
    latencyMs: z.number().min(0).optional(),
    dropConnection: z.boolean().optional(),
    watchResetAfterMs: z.number().min(0).optional(),
    probability: z.number().min(0).max(1).optional(),
    count: z.number().int().min(0).optional(),
  }),
);

interface ActiveRule {
  rule: FaultRule;
  remaining: number;
}

export class Faults {
  private rules: ActiveRule[] = [];
  private readonly random: () => number;

  constructor(random: () => number = Math.random) {
    this.random = random;
  }

  set(rules: FaultRule[]): void {
    this.rules = rules.map((rule) => ({ rule, remaining: rule.count ?? Number.POSITIVE_INFINITY }));
  }

  clear(): void {
    this.rules = [];
  }

  list(): FaultRule[] {
    return this.rules.map((r) => ({
      ...r.rule,
      ...(Number.isFinite(r.remaining) ? { count: r.remaining } : {}),
    }));
  }

  /** The first rule that fires for this request (consuming one of its `count`), if any. */
  match(verb: string, resource: string, namespace: string | undefined): FaultRule | undefined {
    if (this.rules.length === 0) return undefined;
    for (const active of this.rules) {
      const { rule } = active;
      if (active.remaining <= 0) continue;
      if (rule.verb !== undefined && rule.verb !== verb) continue;
      if (rule.resource !== undefined && rule.resource !== resource) continue;
      if (rule.namespace !== undefined && rule.namespace !== namespace) continue;
      if (rule.probability !== undefined && this.random() >= rule.probability) continue;
      active.remaining--;
      return rule;
    }
    return undefined;
  }
}
