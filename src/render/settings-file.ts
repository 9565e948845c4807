/**
 * The settings file, as `mooring render --settings` and `mooring run --settings` both read it: every
 * member optional, merged over the defaults (settings.ts). Closed: a misspelt member is an error,
 * not silently ignored.
 */
import { z } from 'zod';
import { parseYaml } from '../lazy-yaml.ts';
import { COMPONENTS } from './components.ts';
import { extraVolumeTypeProblem, POD_SECURITY_LEVELS } from '../pod-security-lists.ts';
import { ExposureSettingsFile } from './exposure-settings.ts';
import { PodMetadataSettingsFile } from './pod-metadata-policy.ts';
import { ReferenceSettingsFile } from './reference-settings.ts';
import { WorkloadSettingsFile } from './settings-workloads.ts';

/** The schema of a settings file (YAML or JSON). */
export const RenderSettingsFile = z.strictObject({
  listenerId: z.string().min(1).optional(),
  redisImage: z.string().min(1).optional(),
  postgresImage: z.string().min(1).optional(),
  storageClassName: z.string().min(1).optional(),
  clusterDomain: z.string().min(1).optional(),
  policy: z
    .strictObject({
      podSecurity: z.enum(POD_SECURITY_LEVELS, 'must be baseline or restricted').optional(),
      allowHostPath: z.boolean().optional(),
      allowPrivileged: z.boolean().optional(),
      allowedVolumeTypes: z.array(volumeType()).optional(),
      allowedCsiDrivers: z.array(z.string().min(1)).optional(),
      allowPodCertificates: z.boolean().optional(),
      podMetadata: PodMetadataSettingsFile.optional(),
    })
    .optional(),
  commands: z.partialRecord(z.enum(COMPONENTS), z.array(z.string())).optional(),
  references: ReferenceSettingsFile.optional(),
  exposure: ExposureSettingsFile.optional(),
  ...WorkloadSettingsFile,
});
export type RenderSettingsFile = z.infer<typeof RenderSettingsFile>;

/**
 * One entry of `policy.allowedVolumeTypes`: a volume type Kubernetes knows, other than hostPath
 * (`allowHostPath`) and the types mooring refuses always.
 */
export function volumeType() {
  return z.string().superRefine((t, ctx) => {
    const problem = extraVolumeTypeProblem(t, 'allowHostPath');
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  });
}

/**
 * Parses the text of a settings file (YAML or JSON). Problems name the line or the member, one per
 * line, never a value.
 */
export function parseSettingsText(
  text: string,
): { ok: true; settings: RenderSettingsFile } | { ok: false; problems: string[] } {
  let data: unknown;
  try {
    data = parseYaml(text);
  } catch (err) {
    const pos = (err as { linePos?: { line: number; col: number }[] }).linePos?.[0];
    return {
      ok: false,
      problems: [`not valid YAML or JSON${pos ? ` (line ${pos.line}, column ${pos.col})` : ''}`],
    };
  }
  // An empty file is no settings at all, as an absent one.
  const parsed = RenderSettingsFile.safeParse(data ?? {});
  if (parsed.success) return { ok: true, settings: parsed.data };
  return {
    ok: false,
    problems: parsed.error.issues.map((issue) => {
      const path = issue.path.length > 0 ? issue.path.map(String).join('.') : '(top level)';
      return `${path}: ${issue.message}`;
    }),
  };
}
