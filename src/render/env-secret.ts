import { RenderError } from './errors.ts';
import { sortKeys } from './labels.ts';
import { type RenderedObject, meta, type RenderContext } from './types.ts';

const SECRET_KEY = /^[-._a-zA-Z0-9]+$/;

/**
 * Checks the deployment's secrets: valid Secret keys, each name once. Returns their names. Errors
 * name the entry, never its value.
 */
export function checkSecrets(secrets: ReadonlyArray<{ name: string }> | null | undefined): Set<string> {
  const names = new Set<string>();
  (secrets ?? []).forEach((s, i) => {
    const field = `secrets[${i}].name`;
    if (s.name.length > 253 || !SECRET_KEY.test(s.name)) {
      throw new RenderError(
        'MOORING_E_RENDER_INVALID',
        field,
        `${field} "${s.name}" is not a valid Secret key`,
      );
    }
    if (names.has(s.name)) {
      throw new RenderError('MOORING_E_RENDER_INVALID', field, `${field} "${s.name}" is given twice`);
    }
    names.add(s.name);
  });
  return names;
}

/**
 * Secret `b-env`: the deployment's secrets as `stringData`, sorted by name. The only object that
 * ever carries a secret value. None when the deployment has no secrets.
 */
export function renderEnvSecret(ctx: RenderContext): RenderedObject | undefined {
  const secrets = ctx.deployment.secrets ?? [];
  if (secrets.length === 0) return undefined;
  const data: Record<string, string> = {};
  for (const [i, s] of secrets.entries()) {
    // The poller refuses a record without values before it is rendered; this is the backstop.
    if (s.value === undefined) {
      throw new RenderError(
        'MOORING_E_RENDER_INVALID',
        `secrets.${i}.value`,
        `secret "${s.name}" carries no value`,
      );
    }
    data[s.name] = s.value;
  }
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: meta(ctx, ctx.names.env, 'env'),
    type: 'Opaque',
    stringData: sortKeys(data),
  };
}

/** The Secret key names a Kubernetes Secret accepts. */
export function isSecretKey(s: string): boolean {
  return s.length <= 253 && SECRET_KEY.test(s);
}
