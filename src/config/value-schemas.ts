/**
 * How each kind of setting turns its raw string into a value: one zod schema per kind, whose
 * messages say what is expected.
 */
import { z } from 'zod';
import { extraVolumeTypeProblem, POD_SECURITY_LEVELS } from '../pod-security-lists.ts';
import type { Kind } from './setting.ts';
import { isDnsLabel, isDnsSubdomain } from '../objects/dns-names.ts';

const LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/** Splits a comma list, trimming items and dropping empty ones. */
function commaList(s: string): string[] {
  return s
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p.length > 0);
}

/** `ns=uuid,ns2=uuid` as a map; each namespace once. */
const tenantsSchema = z.string().transform((s, ctx) => {
  const out: Record<string, string> = {};
  for (const entry of commaList(s)) {
    const [ns = '', tenant = '', ...rest] = entry.split('=').map((p) => p.trim());
    if (rest.length > 0 || !isDnsLabel(ns) || !z.uuid().safeParse(tenant).success) {
      ctx.addIssue({ code: 'custom', message: 'each entry must be namespace=tenant-uuid' });
      return z.NEVER;
    }
    if (Object.hasOwn(out, ns)) {
      ctx.addIssue({ code: 'custom', message: `namespace "${ns}" is bound twice` });
      return z.NEVER;
    }
    out[ns] = tenant.toLowerCase();
  }
  if (Object.keys(out).length === 0) {
    ctx.addIssue({ code: 'custom', message: 'must bind at least one namespace' });
    return z.NEVER;
  }
  return out;
});

/** One zod schema per kind: raw string in, value out. Messages say what is expected. */
export const KIND_SCHEMAS: Record<Kind, z.ZodType> = {
  string: z.string().trim().min(1, 'must not be empty'),
  objectName: z
    .string()
    .trim()
    .refine(isDnsSubdomain, 'must be a Kubernetes object name (DNS-1123 subdomain)'),
  url: z
    .string()
    .trim()
    .refine((s) => /^https?:\/\//.test(s) && URL.canParse(s), 'must be an http(s) URL'),
  uuid: z.string().trim().pipe(z.uuid('must be a uuid')),
  list: z
    .string()
    .transform(commaList)
    .pipe(
      z
        .array(z.string().refine(isDnsLabel, 'each namespace must be a DNS-1123 label'))
        .min(1, 'must name at least one namespace'),
    ),
  seconds: z
    .string()
    .trim()
    .regex(/^\d+(\.\d+)?$/, 'must be a positive number of seconds')
    .transform(Number)
    .pipe(z.number().positive('must be a positive number of seconds')),
  int: z
    .string()
    .trim()
    .regex(/^\d+$/, 'must be a whole number')
    .transform(Number)
    .pipe(z.number().int().min(1, 'must be at least 1').max(1000, 'must be at most 1000')),
  rate: z
    .string()
    .trim()
    .regex(/^(auto|\d+(\.\d+)?)$/, 'must be auto or a number of requests a second (0 = no limit)')
    .transform((v) => (v === 'auto' ? ('auto' as const) : Number(v)))
    .pipe(z.union([z.literal('auto'), z.number().max(100_000, 'must be at most 100000')])),
  port: z
    .string()
    .trim()
    .regex(/^\d+$/, 'must be a port number')
    .transform(Number)
    .pipe(z.number().int().min(0).max(65535, 'must be a port number (0-65535)')),
  bool: z
    .string()
    .trim()
    .toLowerCase()
    .pipe(z.enum(['true', 'false', '1', '0', 'yes', 'no'], 'must be true or false'))
    .transform((s) => s === 'true' || s === '1' || s === 'yes'),
  level: z
    .string()
    .trim()
    .toLowerCase()
    .pipe(z.enum(LEVELS, `must be one of ${LEVELS.join(', ')}`)),
  names: z
    .string()
    .transform(commaList)
    .pipe(
      z
        .array(z.string().refine(isDnsSubdomain, 'each name must be a DNS-1123 subdomain'))
        .min(1, 'must name at least one'),
    ),
  tenants: tenantsSchema,
  podSecurity: z
    .string()
    .trim()
    .pipe(z.enum(POD_SECURITY_LEVELS, `must be one of ${POD_SECURITY_LEVELS.join(', ')}`)),
  volumeTypes: z
    .string()
    .transform(commaList)
    .pipe(
      z.array(
        z.string().superRefine((t, ctx) => {
          const problem = extraVolumeTypeProblem(t, '--allow-host-path');
          if (problem) ctx.addIssue({ code: 'custom', message: problem });
        }),
      ),
    ),
};
