import { z } from 'zod';
import { authSchemas } from './auth.ts';
import { deploymentSchemas } from './deployment.ts';
import { listenerSchemas } from './listener.ts';
import { builders, type Mode } from './mode.ts';

function build(mode: Mode) {
  const b = builders(mode);
  return { ...deploymentSchemas(b), ...listenerSchemas(b), ...authSchemas(b) };
}

/** Schemas the reference server validates requests (and its own responses) with. */
export const strict = build('strict');
/** Schemas the client parses responses with: extra fields and unknown enum values are kept. */
export const tolerant = build('tolerant');

/** The envelope as the client first reads it: items are parsed one by one afterwards. */
export const RawListEnvelope = z.looseObject({
  resources: z.array(z.unknown()),
  offset: z.number().int().nonnegative(),
});

type Strict = typeof strict;
type Tolerant = typeof tolerant;

export type ResourceSpec = z.infer<Strict['ResourceSpec']>;
export type Container = z.infer<Strict['Container']>;
export type VolumeMount = z.infer<Strict['VolumeMount']>;
export type Volume = z.infer<Strict['Volume']>;
export type EnvVar = z.infer<Strict['EnvVar']>;
export type Secret = z.infer<Strict['Secret']>;
export type SecretReference = z.infer<Strict['SecretReference']>;
export type SourceConfig = z.infer<Strict['SourceConfig']>;
export type SourceRevisionConfig = z.infer<Strict['SourceRevisionConfig']>;
export type SourceRevisionConfigInput = z.infer<Strict['SourceRevisionConfigInput']>;
export type Deployment = z.infer<Strict['Deployment']>;
export type Revision = z.infer<Strict['Revision']>;
export type DeploymentCreate = z.infer<Strict['DeploymentCreate']>;
export type DeploymentPatch = z.infer<Strict['DeploymentPatch']>;
export type Listener = z.infer<Strict['Listener']>;
export type ListenerCreate = z.infer<Strict['ListenerCreate']>;
export type ListenerPatch = z.infer<Strict['ListenerPatch']>;
export type ComputeConfig = z.infer<Strict['ComputeConfig']>;
export type Token = z.infer<Strict['Token']>;
export type Connection = z.infer<Strict['Connection']>;
export type ConnectionList = z.infer<Strict['ConnectionList']>;
export type Repository = z.infer<Strict['Repository']>;

/** What the client holds after tolerant parsing: like the strict types, plus kept unknowns. */
export type DeploymentRecord = z.infer<Tolerant['Deployment']>;
export type RevisionRecord = z.infer<Tolerant['Revision']>;
export type ListenerRecord = z.infer<Tolerant['Listener']>;
export type ResourceSpecRecord = z.infer<Tolerant['ResourceSpec']>;
