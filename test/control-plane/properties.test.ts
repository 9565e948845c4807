import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  DEPLOYMENT_TYPES,
  type DeploymentCreate,
  REVISION_SOURCES,
  SOURCES,
  strict,
} from '../../src/contract/index.ts';
import { type Harness, harness, LISTENER_ID, OTHER_LISTENER_ID } from './helpers.ts';

// Any Unicode, lone surrogates included: JSON and SQLite must carry them unchanged.
const text = fc.string({ unit: 'binary', maxLength: 12 });
const nonEmpty = fc.string({ unit: 'binary', minLength: 1, maxLength: 12 });
const cores = fc.double({ min: 0.001, max: 512, noNaN: true, noDefaultInfinity: true });
const mib = fc.double({ min: 0.5, max: 1e6, noNaN: true, noDefaultInfinity: true });
const scale = fc.integer({ min: 0, max: 1000 });
const nullable = <T>(a: fc.Arbitrary<T>) => fc.option(a, { nil: null, freq: 5 });
const stringMap = fc.dictionary(text, text, { maxKeys: 3 });

const volumeMount = fc.record(
  { name: nonEmpty, mountPath: nonEmpty, subPath: nullable(text), readOnly: nullable(fc.boolean()) },
  { requiredKeys: ['name', 'mountPath'] },
);
const container = fc.record(
  {
    name: nonEmpty,
    image: nullable(text),
    command: fc.array(text, { maxLength: 3 }),
    env: fc.array(fc.record({ name: nonEmpty, value: nullable(text) }, { requiredKeys: ['name'] }), {
      maxLength: 2,
    }),
    resources: fc.record(
      { limits: fc.dictionary(text, fc.oneof(text, fc.integer())), requests: fc.dictionary(text, text) },
      { requiredKeys: [] },
    ),
    volumeMounts: fc.array(volumeMount, { maxLength: 2 }),
    securityContext: fc.dictionary(text, fc.jsonValue({ maxDepth: 2 }), { maxKeys: 2 }),
  },
  { requiredKeys: ['name'] },
);
const resourceSpec = fc.record(
  {
    min_scale: nullable(scale),
    max_scale: scale,
    cpu: cores,
    cpu_limit: nullable(cores),
    memory_mb: mib,
    queue_cpu: cores,
    orchestrator_max_scale: scale,
    executor_memory_limit_mb: mib,
    redis_cpu: cores,
    db_storage_gi: mib,
    db_max_connections: fc.integer({ min: 1, max: 10_000 }),
    labels: stringMap,
    annotations: stringMap,
    service_account_name: nullable(text),
    image_pull_secrets: fc.array(fc.record({ name: nonEmpty }), { maxLength: 2 }),
    volumes: fc.array(fc.record({ name: nonEmpty, emptyDir: fc.constant({}) }), { maxLength: 2 }),
    volume_mounts: fc.array(volumeMount, { maxLength: 2 }),
    init_containers: fc.array(container, { maxLength: 1 }),
    sidecars: fc.array(container, { maxLength: 2 }),
  },
  { requiredKeys: [] },
);
const sourceConfig = fc.record(
  {
    integration_id: nullable(fc.uuid({ version: 4 })),
    repo_url: nullable(text),
    deployment_type: nullable(fc.constantFrom(...DEPLOYMENT_TYPES)),
    build_on_push: nullable(fc.boolean()),
    custom_url: text,
    resource_spec: nullable(resourceSpec),
    listener_id: nullable(fc.constantFrom(LISTENER_ID, OTHER_LISTENER_ID)),
    listener_config: fc.record({ k8s_namespace: nullable(text) }, { requiredKeys: [] }),
    install_command: text,
    build_command: nullable(text),
  },
  { requiredKeys: [] },
);
const revisionConfig = fc.record(
  { repo_ref: nullable(text), graph_config_path: text, image_uri: nullable(text), source_tarball_path: text },
  { requiredKeys: [] },
);
const secrets = fc.uniqueArray(fc.record({ name: nonEmpty, value: text }), {
  selector: (s) => s.name,
  maxLength: 4,
});
const secretReferences = fc.array(
  fc.record({ name: nonEmpty, secret_name: nonEmpty, secret_key: nonEmpty }),
  {
    maxLength: 2,
  },
);

const createBody: fc.Arbitrary<DeploymentCreate> = fc
  .record(
    {
      source: fc.constantFrom(...SOURCES),
      source_config: nullable(sourceConfig),
      source_revision_config: nullable(revisionConfig),
      secrets: nullable(secrets),
      secret_references: nullable(secretReferences),
    },
    { requiredKeys: ['source'] },
  )
  .map((b) => {
    // secret_references only apply to external_docker: a rule the schema alone cannot state.
    const body = { name: 'n', ...b };
    if (body.source !== 'external_docker') delete body.secret_references;
    return body as DeploymentCreate;
  });

describe('property: whatever the strict schema accepts round-trips through server and client unchanged', () => {
  let h: Harness;
  let counter = 0;
  beforeAll(async () => {
    h = await harness();
  });
  afterAll(async () => {
    await h.close();
  });

  it('a created deployment comes back with exactly what was sent', async () => {
    await fc.assert(
      fc.asyncProperty(createBody, nonEmpty, async (body, name) => {
        // What the wire can carry: JSON has no -0 (it is sent as 0), so compare against the JSON form.
        const sent = JSON.parse(
          JSON.stringify({ ...body, name: `${name}-${counter++}` }),
        ) as DeploymentCreate;
        // Whatever strict accepts (it refuses e.g. a `__proto__` label key, which zod would drop).
        fc.pre(strict.DeploymentCreate.safeParse(sent).success);
        const created = await h.client.createDeployment(sent);
        expect(strict.Deployment.safeParse(created).success).toBe(true);
        expect(created.name).toBe(sent.name);
        expect(created.source).toBe(sent.source);
        expect(created.source_config).toEqual(sent.source_config ?? {});
        expect(created.source_revision_config).toEqual({
          ...sent.source_revision_config,
          repo_commit_sha: null,
        });
        expect(created.secrets).toEqual(sent.secrets ?? []);
        expect(created.secret_references).toEqual(sent.secret_references ?? null);
        // Listing gives the same record; the revision holds the same revision config.
        const [listed] = (await h.client.listAllDeployments({ deployment_ids: [created.id] })).items;
        expect(listed).toEqual(created);
        const revision = await h.client.getRevision(created.id, created.latest_revision_id!);
        expect(revision.source_revision_config).toEqual(created.source_revision_config);
      }),
      { numRuns: 60 },
    );
  });

  it('a PATCH merges what was sent and makes a revision exactly when the revision inputs change', async () => {
    const base = await h.client.createDeployment({ name: 'patched-by-properties', source: 'vcshost' });
    await fc.assert(
      fc.asyncProperty(
        fc.record(
          {
            revision_source: nullable(fc.constantFrom(...REVISION_SOURCES)),
            source_config: nullable(sourceConfig),
            source_revision_config: nullable(revisionConfig),
            secrets: nullable(secrets),
          },
          { requiredKeys: [] },
        ),
        async (patch) => {
          fc.pre(strict.DeploymentPatch.safeParse(patch).success);
          const [before] = (await h.client.listAllDeployments({ deployment_ids: [base.id] })).items;
          const after = await h.client.patchDeployment(base.id, patch);
          expect(after.source_config).toEqual({ ...before!.source_config, ...patch.source_config });
          expect(after.secrets).toEqual(patch.secrets ?? before!.secrets);
          if (after.latest_revision_id === before!.latest_revision_id) {
            expect(after.source_revision_config).toEqual(before!.source_revision_config);
            // No revision means nothing revision-relevant differed: every value sent was already there.
            const was = before!.source_revision_config as Record<string, unknown>;
            for (const [key, value] of Object.entries(patch.source_revision_config ?? {})) {
              expect(value ?? null).toEqual(was[key] ?? null);
            }
            if (patch.secrets) {
              const byName = (list: { name: string }[]) =>
                [...list].sort((a, b) => (a.name < b.name ? -1 : 1));
              expect(byName(patch.secrets)).toEqual(byName(before!.secrets));
            }
          } else {
            const { repo_commit_sha: _a, ...old } = before!.source_revision_config;
            expect(after.source_revision_config).toEqual({
              ...old,
              ...patch.source_revision_config,
              repo_commit_sha: null,
            });
            const revision = await h.client.getRevision(base.id, after.latest_revision_id!);
            expect(revision.source).toBe(patch.revision_source ?? 'vcshost');
          }
        },
      ),
      { numRuns: 60 },
    );
  });
});
