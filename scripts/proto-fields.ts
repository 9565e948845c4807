/**
 * Writes src/sandbox/proto/fields.json: for each Kubernetes protobuf message field whose JSON form
 * is not the plain "omitempty value" rule, how the Go JSON encoder writes it. The .proto files do
 * not say which Go fields are pointers (a present zero is meaningful: `replicas: 0`), which are
 * inlined into their parent (`Volume.volumeSource`), which have no omitempty, or which JSON name
 * differs; the Go struct tags do. Reproducible from the same tag the .proto files come from:
 *
 *   node scripts/proto-fields.ts <kubernetes/api checkout> <kubernetes/apimachinery checkout>
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** Go source file (relative to its repository) and the protobuf package of its messages. */
const SOURCES: [repo: 0 | 1, file: string, pkg: string][] = [
  [0, 'core/v1/types.go', 'k8s.io.api.core.v1'],
  [0, 'apps/v1/types.go', 'k8s.io.api.apps.v1'],
  [0, 'autoscaling/v1/types.go', 'k8s.io.api.autoscaling.v1'],
  [0, 'autoscaling/v2/types.go', 'k8s.io.api.autoscaling.v2'],
  [0, 'policy/v1/types.go', 'k8s.io.api.policy.v1'],
  [0, 'networking/v1/types.go', 'k8s.io.api.networking.v1'],
  [0, 'rbac/v1/types.go', 'k8s.io.api.rbac.v1'],
  [0, 'coordination/v1/types.go', 'k8s.io.api.coordination.v1'],
  [0, 'authorization/v1/types.go', 'k8s.io.api.authorization.v1'],
  [1, 'pkg/apis/meta/v1/types.go', 'k8s.io.apimachinery.pkg.apis.meta.v1'],
  [1, 'pkg/runtime/types.go', 'k8s.io.apimachinery.pkg.runtime'],
];

const FIELD = /^\s*(\w+)?\s+(\S+)\s+`json:"([^"]*)"[^`]*protobuf:"[^"]*name=(\w+)/;

/** Flags: i inline, p pointer, r no omitempty, z omitzero; then `:jsonName` when it differs. */
function fieldsOf(source: string): Record<string, Record<string, string>> {
  const out: Record<string, Record<string, string>> = {};
  let message: string | undefined;
  for (const line of source.split('\n')) {
    const start = /^type (\w+) struct \{/.exec(line);
    if (start) {
      message = start[1];
      continue;
    }
    if (line.startsWith('}')) message = undefined;
    const m = message && !line.trimStart().startsWith('//') ? FIELD.exec(line) : null;
    if (!m || !message) continue;
    const [, goName, goType = '', json = '', protoName = ''] = m;
    const [jsonName = '', ...options] = json.split(',');
    let flags = '';
    // `json:",inline"`, or an embedded struct without a JSON name: its fields belong to the parent.
    if (jsonName === '' && (options.includes('inline') || goName === undefined)) flags += 'i';
    if (goType.startsWith('*')) flags += 'p';
    if (!options.includes('omitempty') && jsonName !== '' && jsonName !== '-') flags += 'r';
    if (options.includes('omitzero')) flags += 'z';
    const rename = jsonName !== '' && jsonName !== '-' && jsonName !== protoName ? `:${jsonName}` : '';
    if (flags === '' && rename === '') continue;
    out[message] ??= {};
    (out[message] as Record<string, string>)[protoName] = flags + rename;
  }
  return out;
}

const [apiRoot, machineryRoot] = process.argv.slice(2);
if (!apiRoot || !machineryRoot) {
  console.error('usage: node scripts/proto-fields.ts <kubernetes/api dir> <kubernetes/apimachinery dir>');
  process.exit(2);
}
const table: Record<string, Record<string, string>> = {};
for (const [repo, file, pkg] of SOURCES) {
  const text = readFileSync(path.join(repo === 0 ? apiRoot : machineryRoot, file), 'utf8');
  for (const [message, fields] of Object.entries(fieldsOf(text))) table[`${pkg}.${message}`] = fields;
}
const here = path.dirname(fileURLToPath(import.meta.url));
const sorted = Object.fromEntries(Object.entries(table).sort(([a], [b]) => a.localeCompare(b)));
writeFileSync(path.join(here, '../src/sandbox/proto/fields.json'), `${JSON.stringify(sorted, null, 1)}\n`);
