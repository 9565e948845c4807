/**
 * authorization.k8s.io/v1 SelfSubjectAccessReview and SelfSubjectRulesReview. The sandbox
 * enforces no RBAC, so it answers as kube-apiserver with `--authorization-mode=AlwaysAllow`:
 * every access review is allowed (no reason), and the rules review lists `*` for everything.
 * This is what `kubectl auth can-i` (and helm's capability checks) ask.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { decodeBody, readBytes, send } from './http-body.ts';
import { ApiError, methodNotAllowed } from './status.ts';

export const REVIEW_GROUP = 'authorization.k8s.io';
export const REVIEW_VERSION = 'v1';

/** The review resources served, create-only and cluster-scoped, for discovery. */
export const REVIEW_RESOURCES: readonly { resource: string; kind: string; singular: string }[] = [
  {
    resource: 'selfsubjectaccessreviews',
    kind: 'SelfSubjectAccessReview',
    singular: 'selfsubjectaccessreview',
  },
  { resource: 'selfsubjectrulesreviews', kind: 'SelfSubjectRulesReview', singular: 'selfsubjectrulesreview' },
];

const PREFIX = `/apis/${REVIEW_GROUP}/${REVIEW_VERSION}/`;

type Obj = Record<string, unknown>;

/** 422 as the API server words an invalid review (no name: reviews are not stored). */
function invalidReview(kind: string, field: string, value: unknown, detail: string): ApiError {
  const message = `Invalid value: ${JSON.stringify(value ?? null)}: ${detail}`;
  const shown = value === undefined || value === null ? `Invalid value: "null": ${detail}` : message;
  return new ApiError(422, 'Invalid', `${kind}.${REVIEW_GROUP} "" is invalid: ${field}: ${shown}`, {
    group: REVIEW_GROUP,
    kind,
    causes: [{ reason: 'FieldValueInvalid', message: shown, field }],
  });
}

/** ValidateSelfSubjectAccessReviewSpec: exactly one of resourceAttributes and nonResourceAttributes. */
function validateAccessReview(spec: Obj): void {
  const kind = 'SelfSubjectAccessReview';
  if (spec.resourceAttributes != null && spec.nonResourceAttributes != null)
    throw invalidReview(
      kind,
      'spec.nonResourceAttributes',
      spec.nonResourceAttributes,
      'cannot be specified in combination with resourceAttributes',
    );
  if (spec.resourceAttributes == null && spec.nonResourceAttributes == null)
    throw invalidReview(
      kind,
      'spec.resourceAttributes',
      spec.nonResourceAttributes,
      'exactly one of nonResourceAttributes or resourceAttributes must be specified',
    );
}

/** What the AlwaysAllow authorizer's RulesFor answers: everything, complete. */
const ALL_RULES = {
  resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }],
  nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }],
  incomplete: false,
};

async function readReview(req: IncomingMessage): Promise<Obj> {
  // JSON, YAML or protobuf (from the vendored authorization/v1 definitions), as for every kind.
  const decoded = decodeBody(await readBytes(req), req);
  return decoded !== null && typeof decoded === 'object' ? (decoded as Obj) : {};
}

/** Answers a request for a review resource; false when `path` is not one. */
export async function serveAccessReview(
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
): Promise<boolean> {
  if (!path.startsWith(PREFIX)) return false;
  const served = REVIEW_RESOURCES.find((r) => path === `${PREFIX}${r.resource}`);
  if (!served) return false;
  if (req.method !== 'POST')
    throw methodNotAllowed('the server does not allow this method on the requested resource');
  const review = await readReview(req);
  const spec = (review.spec ?? {}) as Obj;
  if (served.kind === 'SelfSubjectAccessReview') validateAccessReview(spec);
  const status = served.kind === 'SelfSubjectAccessReview' ? { allowed: true } : ALL_RULES;
  send(res, 201, {
    kind: served.kind,
    apiVersion: `${REVIEW_GROUP}/${REVIEW_VERSION}`,
    metadata: review.metadata ?? {},
    spec,
    status,
  });
  return true;
}
