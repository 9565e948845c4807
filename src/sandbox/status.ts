/**
 * metav1.Status failures exactly as a real API server writes them: kind Status, apiVersion v1,
 * status Failure, message, reason, details {name, group, kind, causes}, code.
 */
import { type ResourceType, qualifiedResource } from './resources.ts';

export interface StatusCause {
  reason?: string;
  message: string;
  field?: string;
  type?: string;
}

export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  uid?: string;
  causes?: StatusCause[];
  retryAfterSeconds?: number;
}

export interface Status {
  kind: 'Status';
  apiVersion: 'v1';
  metadata: Record<string, unknown>;
  status: 'Failure' | 'Success';
  message?: string;
  reason?: string;
  details?: StatusDetails;
  code: number;
}

/** A request failure carrying the Status body the server answers with. */
export class ApiError extends Error {
  readonly status: Status;
  constructor(code: number, reason: string, message: string, details?: StatusDetails) {
    super(message);
    this.name = 'ApiError';
    const status: Status = {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message,
      reason,
      code,
    };
    if (details) status.details = details;
    this.status = status;
  }
  get code(): number {
    return this.status.code;
  }
}

type GR = Pick<ResourceType, 'group' | 'resource'>;

function details(type: GR, name: string | undefined, extra: Partial<StatusDetails> = {}): StatusDetails {
  const d: StatusDetails = {};
  if (name !== undefined && name !== '') d.name = name;
  if (type.group !== '') d.group = type.group;
  d.kind = type.resource;
  return { ...d, ...extra };
}

export function notFound(type: GR, name: string): ApiError {
  return new ApiError(404, 'NotFound', `${qualifiedResource(type)} "${name}" not found`, details(type, name));
}

export function namespaceNotFound(namespace: string): ApiError {
  return notFound({ group: '', resource: 'namespaces' }, namespace);
}

export function alreadyExists(type: GR, name: string): ApiError {
  return new ApiError(
    409,
    'AlreadyExists',
    `${qualifiedResource(type)} "${name}" already exists`,
    details(type, name),
  );
}

/** 409 on a stale resourceVersion (optimistic concurrency). */
export function conflict(type: GR, name: string, why: string): ApiError {
  return new ApiError(
    409,
    'Conflict',
    `Operation cannot be fulfilled on ${qualifiedResource(type)} "${name}": ${why}`,
    details(type, name),
  );
}

export const STALE =
  'the object has been modified; please apply your changes to the latest version and try again';

/** 422 Invalid: `Deployment.apps "x" is invalid: [cause, cause]`. */
export function invalid(
  type: Pick<ResourceType, 'group' | 'kind'>,
  name: string,
  causes: StatusCause[],
): ApiError {
  const gk = type.group === '' ? type.kind : `${type.kind}.${type.group}`;
  const parts = causes.map((c) => (c.field ? `${c.field}: ${c.message}` : c.message));
  const joined = parts.length === 1 ? parts[0] : `[${parts.join(', ')}]`;
  const d: StatusDetails = { name, kind: type.kind, causes };
  if (type.group !== '') d.group = type.group;
  return new ApiError(422, 'Invalid', `${gk} "${name}" is invalid: ${joined}`, {
    name: d.name,
    ...(d.group ? { group: d.group } : {}),
    kind: d.kind,
    causes,
  });
}

export function badRequest(message: string, causes?: StatusCause[]): ApiError {
  return new ApiError(400, 'BadRequest', message, causes ? { causes } : undefined);
}

export function methodNotAllowed(message: string): ApiError {
  return new ApiError(405, 'MethodNotAllowed', message);
}

export function unsupportedMediaType(contentType: string): ApiError {
  return new ApiError(
    415,
    'UnsupportedMediaType',
    `the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml (got ${contentType})`,
  );
}

export function gone(message: string): ApiError {
  return new ApiError(410, 'Expired', message);
}

export function forbidden(type: GR, name: string, message: string): ApiError {
  return new ApiError(403, 'Forbidden', message, details(type, name));
}

/** `{kind: Status, status: Success}` as a delete answers for most built-in kinds. */
export function success(type: GR, name: string, uid?: string): Status {
  return {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Success',
    details: details(type, name, uid ? { uid } : {}),
  } as Status;
}
