/** The Kubernetes verb of a request (as in RBAC and audit logs), for the request metrics. */
export type KubeVerb =
  | 'get'
  | 'list'
  | 'watch'
  | 'create'
  | 'update'
  | 'patch'
  | 'apply'
  | 'delete'
  | 'other';

/** Derives the verb from method, path and content type. */
export function kubeVerb(method: string, path: string, contentType?: string): KubeVerb {
  const [pathname = '', query = ''] = path.split('?');
  const segments = pathname.split('/').filter(Boolean);
  // /api/v1/<rest> or /apis/<group>/<version>/<rest>
  const rest = segments[0] === 'api' ? segments.slice(2) : segments.slice(3);
  const named = rest[0] === 'namespaces' && rest.length >= 3 ? rest.length >= 4 : rest.length >= 2;
  switch (method.toUpperCase()) {
    case 'GET':
      if (/(^|&)watch=(true|1)/.test(query)) return 'watch';
      return named ? 'get' : 'list';
    case 'POST':
      return 'create';
    case 'PUT':
      return 'update';
    case 'PATCH':
      return contentType?.includes('apply-patch') ? 'apply' : 'patch';
    case 'DELETE':
      return 'delete';
    default:
      return 'other';
  }
}
