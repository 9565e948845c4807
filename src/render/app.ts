import { APP_CONTAINER_NAME, APP_PORT, POSTGRES_DEFAULTS, REDIS_DEFAULTS } from './defaults.ts';
import { isEnvName } from './containers.ts';
import { isSecretKey } from './env-secret.ts';
import { RenderError } from './errors.ts';
import { isDnsSubdomain } from '../objects/dns-names.ts';
import { ANNOTATIONS } from '../labels.ts';
import { objectLabels, selectorLabels } from './labels.ts';
import { appPodSpec, podAnnotations } from './pod.ts';
import { defaultContainerSecurityContext } from './policy.ts';
import type { ResourceRequirements, Scale } from './resources.ts';
import type { AppComponent } from './settings.ts';
import { autoscaledObjects, replicasField } from './autoscaling.ts';
import { apiServerProbes, commandAndArgs, placementOf } from './operator-defaults.ts';
import { type RenderedObject, meta, type RenderContext } from './types.ts';

type EnvVar = { name: string; value?: string; valueFrom?: Record<string, unknown> };

/** Variables mooring sets on every app container; a secret_reference may not reuse them. */
export const RESERVED_ENV: ReadonlySet<string> = new Set([
  'PORT',
  'MOORING_COMPONENT',
  'DATABASE_URI',
  'REDIS_URI',
  'POSTGRES_USER',
  'POSTGRES_PASSWORD',
  'POSTGRES_DB',
]);

/** Checks secret_references: valid names and targets, each name once, none of mooring's. */
export function checkSecretReferences(ctx: Pick<RenderContext, 'deployment'>): EnvVar[] {
  const refs = ctx.deployment.secret_references ?? [];
  const seen = new Set<string>();
  refs.forEach((r, i) => {
    const f = `secret_references[${i}]`;
    const fail = (member: string, msg: string) =>
      new RenderError('MOORING_E_RENDER_INVALID', `${f}.${member}`, msg);
    if (!isEnvName(r.name)) throw fail('name', `${f}.name "${r.name}" is not a valid variable name`);
    if (RESERVED_ENV.has(r.name)) throw fail('name', `${f}.name "${r.name}" is set by mooring`);
    if (seen.has(r.name)) throw fail('name', `${f}.name "${r.name}" is given twice`);
    seen.add(r.name);
    if (!isDnsSubdomain(r.secret_name))
      throw fail('secret_name', `${f}.secret_name "${r.secret_name}" is not a valid Secret name`);
    if (!isSecretKey(r.secret_key))
      throw fail('secret_key', `${f}.secret_key "${r.secret_key}" is not a valid Secret key`);
  });
  return [...refs]
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .map((r) => ({ name: r.name, valueFrom: { secretKeyRef: { key: r.secret_key, name: r.secret_name } } }));
}

function secretRef(name: string, key: string): EnvVar['valueFrom'] {
  return { secretKeyRef: { key, name } };
}

/**
 * The app container's environment. DATABASE_URI is assembled by Kubernetes `$(VAR)` expansion from
 * variables read from the credentials Secret, and custom URIs are read from `b-env`: no secret
 * value is ever written here.
 */
export function appEnv(ctx: RenderContext, component: AppComponent, references: EnvVar[]): EnvVar[] {
  const { names, namespace, settings } = ctx;
  const svc = (name: string) => `${name}.${namespace}.svc.${settings.clusterDomain}`;
  const env: EnvVar[] = [
    { name: 'PORT', value: String(APP_PORT) },
    { name: 'MOORING_COMPONENT', value: component },
  ];
  if (ctx.bundledPostgres) {
    const cred = names.postgresCredentials;
    env.push(
      { name: 'POSTGRES_USER', valueFrom: secretRef(cred, 'POSTGRES_USER') },
      { name: 'POSTGRES_PASSWORD', valueFrom: secretRef(cred, 'POSTGRES_PASSWORD') },
      { name: 'POSTGRES_DB', valueFrom: secretRef(cred, 'POSTGRES_DB') },
      {
        name: 'DATABASE_URI',
        value: `postgres://$(POSTGRES_USER):$(POSTGRES_PASSWORD)@${svc(names.postgres)}:${POSTGRES_DEFAULTS.port}/$(POSTGRES_DB)`,
      },
    );
  } else if (ctx.custom.postgres) {
    const { secretName, key } = ctx.custom.postgres;
    env.push({ name: 'DATABASE_URI', valueFrom: secretRef(secretName, key) });
  }
  if (ctx.custom.redis) {
    const { secretName, key } = ctx.custom.redis;
    env.push({ name: 'REDIS_URI', valueFrom: secretRef(secretName, key) });
  } else {
    env.push({ name: 'REDIS_URI', value: `redis://${svc(names.redis)}:${REDIS_DEFAULTS.port}` });
  }
  return [...env, ...references];
}

/** One app workload (API server or worker): its Deployment, plus HPA and PDB when due. */
export function renderAppWorkload(
  ctx: RenderContext,
  component: AppComponent,
  name: string,
  scale: Scale,
  resources: ResourceRequirements,
  references: EnvVar[],
): RenderedObject[] {
  const main: Record<string, unknown> & { name: string } = {
    name: APP_CONTAINER_NAME,
    image: ctx.image,
    ...commandAndArgs(ctx.settings, component),
  };
  main.env = appEnv(ctx, component, references);
  if (ctx.secretNames.size > 0) main.envFrom = [{ secretRef: { name: ctx.names.env } }];
  if (component === 'api-server') {
    main.ports = [{ containerPort: APP_PORT, name: 'http', protocol: 'TCP' }];
    Object.assign(main, apiServerProbes(ctx.settings));
  }
  main.resources = resources;
  main.securityContext = defaultContainerSecurityContext(ctx.settings.policy.podSecurity);
  if (ctx.pod.mainMounts.length > 0) main.volumeMounts = ctx.pod.mainMounts;
  const annotations = podAnnotations(ctx.pod, ctx.revisionId);
  const deployment: RenderedObject = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: meta(ctx, name, component, { [ANNOTATIONS.revisionId]: ctx.revisionId }),
    spec: {
      ...replicasField(ctx, scale),
      selector: { matchLabels: selectorLabels(ctx.labels, component) },
      template: {
        metadata: { ...(annotations ? { annotations } : {}), labels: objectLabels(ctx.labels, component) },
        spec: { ...appPodSpec(ctx.pod, main), ...placementOf(ctx.settings, 'app') },
      },
    },
  };
  return [deployment, ...autoscaledObjects(ctx, component, name, scale)];
}
