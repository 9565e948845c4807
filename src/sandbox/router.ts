/** Turns a request's method and path into the API request it names (group, resource, verb...). */
import { findByResource, type ResourceType } from './resources.ts';
import { ApiError } from './status.ts';

/**
 * kube-apiserver's answer for a path it has no route for (an unknown resource, or a subresource
 * it does not serve): a generic 404 with empty details, whatever the method. It names no object,
 * since the parent may well exist.
 */
export function noRoute(): ApiError {
  return new ApiError(404, 'NotFound', 'the server could not find the requested resource', {});
}

export interface ResourceRequest {
  type: ResourceType;
  group: string;
  version: string;
  namespace?: string;
  name?: string;
  subresource?: string;
  verb: string;
}

export type Route =
  | { kind: 'resource'; request: ResourceRequest }
  /** A group version is served but the resource is not: 404 with a Status. */
  | { kind: 'unknown-resource'; group: string; version: string; resource: string; verb: string }
  | { kind: 'other' };

function verbOf(method: string, hasName: boolean, watch: boolean, contentType: string): string {
  switch (method) {
    case 'GET':
      return watch ? 'watch' : hasName ? 'get' : 'list';
    case 'POST':
      return 'create';
    case 'PUT':
      return 'update';
    case 'PATCH':
      return contentType === 'application/apply-patch+yaml' || contentType === 'application/apply-patch+cbor'
        ? 'apply'
        : 'patch';
    case 'DELETE':
      return hasName ? 'delete' : 'deletecollection';
    default:
      return method.toLowerCase();
  }
}

/** Routes `/api/v1/...` and `/apis/<group>/<version>/...` resource paths. */
export function route(method: string, pathname: string, query: URLSearchParams, contentType: string): Route {
  const parts = pathname.split('/').filter((p) => p !== '');
  let group: string;
  let rest: string[];
  if (parts[0] === 'api' && parts.length >= 3) {
    group = '';
    rest = parts.slice(1);
  } else if (parts[0] === 'apis' && parts.length >= 4) {
    group = parts[1] as string;
    rest = parts.slice(2);
  } else return { kind: 'other' };
  const version = rest[0] as string;
  let segs = rest.slice(1).map(decodeURIComponent);
  let watch = query.get('watch') === 'true' || query.get('watch') === '1';
  if (segs[0] === 'watch') {
    watch = true;
    segs = segs.slice(1);
  }
  let namespace: string | undefined;
  if (segs[0] === 'namespaces' && segs.length >= 3 && findByResource(group, version, segs[2] as string)) {
    namespace = segs[1];
    segs = segs.slice(2);
  }
  const [resource, name, subresource] = segs;
  if (!resource || segs.length > 3) return { kind: 'other' };
  const type = findByResource(group, version, resource);
  const verb = verbOf(method, name !== undefined, watch, contentType);
  if (!type) return { kind: 'unknown-resource', group, version, resource, verb };
  const request: ResourceRequest = { type, group, version, verb };
  if (namespace !== undefined) request.namespace = namespace;
  if (name !== undefined) request.name = name;
  if (subresource !== undefined) request.subresource = subresource;
  return { kind: 'resource', request };
}
