/**
 * Fuzzed control-plane pages (fast-check): valid deployment records mixed with records that are
 * wrong by construction (wrong types, missing fields, negative numbers, deep nesting where an
 * object belongs), arbitrary JSON, records with values the agent does not know (kept, flagged)
 * and valid records carrying huge strings or deeply nested unknown fields (kept). Each record
 * says what the agent must do with it, so a test can check every one.
 */
import fc from 'fast-check';

export const OURS = '11111111-1111-4111-8111-111111111111';
export const OTHER = '99999999-9999-4999-8999-999999999999';
export const REVISION_OF = (i: number) => `77777777-7777-4777-8777-${String(i).padStart(12, '0')}`;
/** Planted in bad records' string values: an error reason must never quote it. */
export const CANARY = 'canary-7c1f4e2a-fuzz-secret';

export type Expect =
  /** Parsed and ours: reconciled. */
  | 'good'
  /** Parsed, another listener's: ignored. */
  | 'other'
  /** Parsed, flagged MOORING_E_RECORD_UNSUPPORTED: refused alone, not reconciled. */
  | 'unsupported'
  /** Refused alone with MOORING_E_RECORD_INVALID. */
  | 'invalid';

export interface FuzzRecord {
  expect: Expect;
  raw: unknown;
}

const HUGE = 'h'.repeat(256 * 1024);

function deep(levels: number, makeArray: boolean): unknown {
  let x: unknown = 'leaf';
  for (let i = 0; i < levels; i++) x = makeArray ? [x] : { n: x };
  return x;
}

export function validRecord(id: string, listenerId: string, i: number): Record<string, unknown> {
  return {
    name: `app-${i}`,
    source: 'external_docker',
    source_config: {
      deployment_type: 'prod',
      listener_id: listenerId,
      listener_config: { k8s_namespace: 'apps' },
      resource_spec: { min_scale: 1, max_scale: 2, cpu: 0.5, memory_mb: 256 },
    },
    source_revision_config: { image_uri: `registry.example.com/app-${i}:1.0.0` },
    secrets: [{ name: 'TOKEN', value: `tok-${i}` }],
    id,
    tenant_id: '33333333-3333-4333-8333-333333333333',
    created_at: '2026-01-01T00:00:00Z',
    updated_at: '2026-01-01T00:00:00Z',
    status: 'READY',
    latest_revision_id: i % 3 === 0 ? null : REVISION_OF(i),
    active_revision_id: null,
  };
}

type Obj = Record<string, unknown>;
type Mutation = (d: Obj) => void;
const sc = (d: Obj) => d.source_config as Obj;
const rs = (d: Obj) => sc(d).resource_spec as Obj;

/** Changes that make a record invalid (each checked against the tolerant schema's rules). */
const BREAKERS: Mutation[] = [
  (d) => {
    d.name = 42;
  },
  (d) => {
    d.name = null;
  },
  (d) => {
    delete d.name;
  },
  (d) => {
    d.name = '';
  },
  (d) => {
    d.id = { nested: CANARY };
  },
  (d) => {
    delete d.id;
  },
  (d) => {
    d.secrets = CANARY;
  },
  (d) => {
    delete d.secrets;
  },
  (d) => {
    d.secrets = [
      { name: 'TOKEN', value: 12345 },
      { name: 'OTHER', value: CANARY },
    ];
  },
  (d) => {
    d.source_config = [CANARY];
  },
  (d) => {
    delete d.source_config;
  },
  (d) => {
    d.source = 7;
  },
  (d) => {
    d.status = { value: CANARY };
  },
  (d) => {
    d.created_at = 1_700_000_000;
  },
  (d) => {
    rs(d).cpu = CANARY;
  },
  (d) => {
    rs(d).cpu = -1;
  },
  (d) => {
    rs(d).min_scale = 'two';
  },
  (d) => {
    rs(d).labels = deep(2_000, true);
  },
  (d) => {
    d.latest_revision_id = 4;
  },
  (d) => {
    delete d.source_revision_config;
  },
  (d) => {
    delete d.tenant_id;
  },
  (d) => {
    d.secrets = [{ name: 'TOKEN', value: CANARY }];
    d.name = ['not', 'a', 'string'];
  },
];

/** Unknown values the interface does not list: kept and flagged. */
const UNKNOWNS: Mutation[] = [
  (d) => {
    d.status = 'HIBERNATING';
  },
  (d) => {
    d.source = 'gitforge_next';
  },
  (d) => {
    sc(d).deployment_type = 'staging';
  },
];

/** Valid but unusual: huge strings, deep unknown fields, extra members. */
const ODD_BUT_VALID: Mutation[] = [
  (d) => {
    d.secrets = [{ name: 'BIG', value: HUGE }];
  },
  (d) => {
    d.x_future = deep(2_000, false);
  },
  (d) => {
    d.x_future = { list: [1, 'two', null, { three: 3 }] };
    sc(d).x_extra = true;
  },
  (d) => {
    d.image_version = HUGE.slice(0, 10_000);
  },
];

const kindArb = fc.constantFrom(
  'good',
  'good',
  'good',
  'other',
  'unsupported',
  'invalid',
  'invalid',
  'junk',
  'odd',
) as fc.Arbitrary<'good' | 'other' | 'unsupported' | 'invalid' | 'junk' | 'odd'>;

/** One record slot: what kind, which mutation, and arbitrary JSON for the junk kind. */
const slotArb = fc.record({
  kind: kindArb,
  pick: fc.nat(),
  junk: fc.jsonValue({ maxDepth: 4 }),
});

/** Builds the records of a page; ids are unique within it (index-based). */
export function buildRecords(
  slots: readonly { kind: string; pick: number; junk: unknown }[],
  base = 0,
): FuzzRecord[] {
  return slots.map((s, k) => {
    const i = base + k;
    const id = `22222222-2222-4222-8222-${String(i).padStart(12, '0')}`;
    const d = validRecord(id, s.kind === 'other' ? OTHER : OURS, i);
    switch (s.kind) {
      case 'good':
        return { expect: 'good', raw: d };
      case 'other':
        return { expect: 'other', raw: d };
      case 'unsupported':
        UNKNOWNS[s.pick % UNKNOWNS.length]?.(d);
        return { expect: 'unsupported', raw: d };
      case 'invalid':
        BREAKERS[s.pick % BREAKERS.length]?.(d);
        return { expect: 'invalid', raw: d };
      case 'odd':
        ODD_BUT_VALID[s.pick % ODD_BUT_VALID.length]?.(d);
        return { expect: 'good', raw: d };
      default:
        // Arbitrary JSON is never a valid deployment (it lacks the required members).
        return { expect: 'invalid', raw: s.junk };
    }
  });
}

/** A page of 0..12 record slots. */
export const pageSlotsArb = fc.array(slotArb, { maxLength: 12 });

/**
 * A whole listing (possibly several pages of 100) of 0..230 slots; one in five fills its last
 * page exactly (100 or 200), where the listing total decides whether an empty page is read.
 */
export const listingSlotsArb = fc.oneof(
  { arbitrary: fc.array(slotArb, { maxLength: 230, size: 'max' }), weight: 8 },
  { arbitrary: fc.array(slotArb, { minLength: 100, maxLength: 100 }), weight: 1 },
  { arbitrary: fc.array(slotArb, { minLength: 200, maxLength: 200 }), weight: 1 },
);

/** Bodies that are not a list envelope at all (the whole listing is then incomplete). */
export const brokenEnvelopeArb: fc.Arbitrary<unknown> = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }),
  fc.record({ resources: fc.jsonValue({ maxDepth: 2 }), offset: fc.jsonValue({ maxDepth: 1 }) }),
  fc.record({ items: fc.array(fc.jsonValue({ maxDepth: 2 }), { maxLength: 3 }), offset: fc.nat() }),
  fc.record({
    resources: fc.array(fc.jsonValue({ maxDepth: 2 }), { maxLength: 3 }),
    offset: fc.integer({ max: -1 }),
  }),
);

/** True when `body` happens to be a valid envelope (fast-check can generate one). */
export function isEnvelope(body: unknown): boolean {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return false;
  const b = body as Obj;
  return Array.isArray(b.resources) && Number.isInteger(b.offset) && (b.offset as number) >= 0;
}

/**
 * How a fuzzed control plane fills `X-Total-Count` (ADR 0003) on a listing: honestly, not at all
 * (the interface does not define it), or wrongly. `smaller` is always below the records the
 * client has received with that page, which the client must detect; a total exactly equal to
 * them cannot be told from the truth and is not generated (the header is trusted as far as the
 * page it comes with).
 */
export type TotalMode = 'honest' | 'absent' | 'garbage' | 'repeated' | 'smaller' | 'larger';

export interface TotalPlan {
  mode: TotalMode;
  pick: number;
}

export const totalPlanArb: fc.Arbitrary<TotalPlan> = fc.record({
  mode: fc.constantFrom<TotalMode>('honest', 'honest', 'absent', 'garbage', 'repeated', 'smaller', 'larger'),
  pick: fc.nat(),
});

const GARBAGE_TOTALS = ['', 'lots', '-1', '+5', '1e3', '12.5', '0x10', '1 0', '99999999999999999999'];

/** The header for one page of a listing of `size` records, asked at `offset`, with `count` sent. */
export function totalHeader(
  plan: TotalPlan,
  size: number,
  offset: number,
  count: number,
): string | string[] | undefined {
  const received = offset + count;
  switch (plan.mode) {
    case 'honest':
      return String(size);
    case 'absent':
      return undefined;
    case 'garbage':
      return GARBAGE_TOTALS[plan.pick % GARBAGE_TOTALS.length];
    case 'repeated':
      return [String(size), String(size)];
    case 'smaller':
      return String(received > 0 ? plan.pick % received : 0);
    case 'larger':
      return String(size + 1 + (plan.pick % 1000));
  }
}

/**
 * List requests a correct client makes for a listing of `size` at page size `limit`: with an
 * honest total, one per page (at least one); otherwise it reads until a short page, so a full
 * last page costs one empty request more.
 */
export function listRequestsFor(plan: TotalPlan, size: number, limit = 100): number {
  return plan.mode === 'honest' ? Math.max(1, Math.ceil(size / limit)) : Math.floor(size / limit) + 1;
}
