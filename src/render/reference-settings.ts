import { z } from 'zod';
import { isDnsLabel } from '../objects/dns-names.ts';

/**
 * What a deployment may refer to outside its own objects (render settings `references`): which
 * ServiceAccount it may run as, whether it may mint ServiceAccount tokens, and which tenant each
 * namespace belongs to. The checks are in references.ts; docs/configuration.md documents them.
 */
export interface ReferenceSettings {
  /**
   * The agent's own ServiceAccount: no deployment may run as it (its token would carry the agent's
   * write access to every managed namespace). Absent: the agent does not know it, nothing is refused.
   */
  agentServiceAccount?: string | undefined;
  /** The namespace the agent runs in; absent: its account's name is refused in every namespace. */
  agentNamespace?: string | undefined;
  /**
   * The ServiceAccounts a deployment may name in `service_account_name`; absent: any but the
   * agent's own (which stays refused even when listed). Naming none is always allowed.
   */
  serviceAccounts?: readonly string[] | undefined;
  /** Whether a projected volume may have a `serviceAccountToken` source. */
  allowServiceAccountTokens: boolean;
  /**
   * Namespace → tenant id: a deployment whose `tenant_id` differs from its namespace's is refused.
   * A namespace not listed takes deployments of any tenant.
   */
  namespaceTenants: Readonly<Record<string, string>>;
}

/** The defaults: no account known or listed, no tokens, no namespace bound. */
export function defaultReferenceSettings(): ReferenceSettings {
  return { allowServiceAccountTokens: false, namespaceTenants: {} };
}

/** The `references` member of a settings file (`mooring render --settings`): every member optional. */
export const ReferenceSettingsFile = z.strictObject({
  agentServiceAccount: z.string().min(1).optional(),
  agentNamespace: z.string().refine(isDnsLabel, 'must be a DNS-1123 label').optional(),
  serviceAccounts: z.array(z.string().min(1)).optional(),
  allowServiceAccountTokens: z.boolean().optional(),
  namespaceTenants: z
    .record(z.string().refine(isDnsLabel, 'each namespace must be a DNS-1123 label'), z.uuid())
    .optional(),
});
export type ReferenceSettingsFile = z.infer<typeof ReferenceSettingsFile>;

/** A settings file's `references` merged over the defaults. */
export function mergeReferenceSettings(file: ReferenceSettingsFile | undefined): ReferenceSettings {
  const base = defaultReferenceSettings();
  if (!file) return base;
  return {
    ...(file.agentServiceAccount ? { agentServiceAccount: file.agentServiceAccount } : {}),
    ...(file.agentNamespace ? { agentNamespace: file.agentNamespace } : {}),
    ...(file.serviceAccounts ? { serviceAccounts: [...file.serviceAccounts] } : {}),
    allowServiceAccountTokens: file.allowServiceAccountTokens ?? base.allowServiceAccountTokens,
    namespaceTenants: { ...(file.namespaceTenants ?? {}) },
  };
}
