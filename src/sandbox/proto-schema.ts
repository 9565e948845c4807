/**
 * The Kubernetes protobuf message definitions (the vendored `generated.proto` files of
 * k8s.io/api and k8s.io/apimachinery, see proto/README.md), loaded once by protobufjs, and the
 * Go JSON facts the .proto files leave out (proto/fields.json, written by scripts/proto-fields.ts).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import protobuf from 'protobufjs';

const DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'proto');

/** The protobuf package of each served API group (`''` is core, `meta.k8s.io` the meta types). */
const PACKAGES: Record<string, string> = {
  '': 'k8s.io.api.core',
  apps: 'k8s.io.api.apps',
  autoscaling: 'k8s.io.api.autoscaling',
  policy: 'k8s.io.api.policy',
  'networking.k8s.io': 'k8s.io.api.networking',
  'rbac.authorization.k8s.io': 'k8s.io.api.rbac',
  'coordination.k8s.io': 'k8s.io.api.coordination',
  'authorization.k8s.io': 'k8s.io.api.authorization',
  'meta.k8s.io': 'k8s.io.apimachinery.pkg.apis.meta',
};

const FILES = [
  'k8s.io/api/core/v1/generated.proto',
  'k8s.io/api/apps/v1/generated.proto',
  'k8s.io/api/autoscaling/v1/generated.proto',
  'k8s.io/api/autoscaling/v2/generated.proto',
  'k8s.io/api/policy/v1/generated.proto',
  'k8s.io/api/networking/v1/generated.proto',
  'k8s.io/api/rbac/v1/generated.proto',
  'k8s.io/api/coordination/v1/generated.proto',
  'k8s.io/api/authorization/v1/generated.proto',
];

export interface ProtoSchema {
  root: protobuf.Root;
  /** Per message full name (no leading dot), per proto field: Go JSON flags, see scripts/proto-fields.ts. */
  fields: Record<string, Record<string, string>>;
}

let loaded: ProtoSchema | undefined;

/** Loads the definitions on first use (the sandbox calls it at start, so a broken file fails early). */
export function protoSchema(): ProtoSchema {
  if (loaded) return loaded;
  const root = new protobuf.Root();
  root.resolvePath = (_origin, target) => path.join(DIR, target);
  // Comments kept: they are the API documentation the OpenAPI descriptions are made of.
  root.loadSync(FILES, { keepCase: true, alternateCommentMode: true });
  root.resolveAll();
  const fields = JSON.parse(readFileSync(path.join(DIR, 'fields.json'), 'utf8')) as ProtoSchema['fields'];
  loaded = { root, fields };
  return loaded;
}

/** The message type of `apiVersion`/`kind`, or undefined when the group is not one we have. */
export function messageOf(apiVersion: string, kind: string): protobuf.Type | undefined {
  const slash = apiVersion.lastIndexOf('/');
  const group = slash < 0 ? '' : apiVersion.slice(0, slash);
  const version = apiVersion.slice(slash + 1);
  // DeleteOptions arrive as `v1` (core) as well as `meta.k8s.io/v1`: both are the meta type.
  const pkg = kind === 'DeleteOptions' ? PACKAGES['meta.k8s.io'] : PACKAGES[group];
  if (!pkg || !/^v\d+(?:(?:alpha|beta)\d+)?$/.test(version) || !/^\w+$/.test(kind)) return undefined;
  const found = protoSchema().root.lookup(`${pkg}.${version}.${kind}`);
  return found instanceof protobuf.Type ? found : undefined;
}

/**
 * The message of a client-node model class name (`V1DeploymentSpec`, `CoreV1Event`,
 * `V2HorizontalPodAutoscalerSpec`), looked up in each served group's package; undefined for none.
 */
export function messageOfModel(model: string): protobuf.Type | undefined {
  const m = /^(?:Core)?(V\d+(?:alpha\d+|beta\d+)?)([A-Z]\w*)$/.exec(model);
  if (!m) return undefined;
  const [, version, name] = m as unknown as [string, string, string];
  const root = protoSchema().root;
  for (const pkg of Object.values(PACKAGES)) {
    const found = root.lookup(`${pkg}.${version.toLowerCase()}.${name}`);
    if (found instanceof protobuf.Type) return found;
  }
  return undefined;
}

/**
 * A Go doc comment as the OpenAPI generator turns it into a description: generator tags (`+…`)
 * and one-line TODOs dropped, anything after `---` dropped, a line ending a sentence keeps its
 * line break, other lines are joined with a space, blank lines separate paragraphs.
 */
export function descriptionOf(comment: string | null | undefined): string | undefined {
  if (!comment) return undefined;
  let out = '';
  for (const raw of (comment.split('---')[0] ?? '').split('\n')) {
    const line = raw.trimEnd();
    const leading = line.trimStart();
    if (line === '') out = `${out.replace(/[ \n]$/, '')}\n\n`;
    else if (leading.startsWith('TODO') || leading.startsWith('+')) continue;
    else if (line.startsWith(' ') || line.startsWith('\t')) out = `${out.replace(/[ \n]$/, '')}\n${line}\n`;
    else out += line.endsWith('.') ? `${line}\n` : `${line} `;
  }
  const text = out.replace(/\s+$/, '');
  return text === '' ? undefined : text;
}
