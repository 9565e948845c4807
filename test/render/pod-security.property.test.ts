import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ResourceSpecRecord } from '../../src/contract/index.ts';
import { type RenderPolicy, RenderError, renderDeployment } from '../../src/render/index.ts';
import { deployment, settings } from './fixtures.ts';
import { mooringFailures, type OracleExemptions, podTemplatesOf, pssFailures } from './pss-oracle.ts';

/**
 * Fuzz: random securityContexts (every field a Pod Security Standard control reads, with hostile
 * and harmless values, capability names in any case with or without CAP_), volumes of every type
 * and pod annotations, on sidecars, native sidecars and init containers, under random policies.
 * Each input either renders to pods that satisfy the selected level by the independent oracle
 * (test/render/pss-oracle.ts; less the controls the policy exempts) and mooring's volume rules,
 * or is refused with a RenderError. Never rendered non-compliant.
 */

const BASE = 'shop';

const CAPABILITIES = [
  'CHOWN',
  'NET_BIND_SERVICE',
  'KILL',
  'SETUID',
  'SYS_CHROOT',
  'SYS_ADMIN',
  'SYS_MODULE',
  'SYS_PTRACE',
  'NET_ADMIN',
  'NET_RAW',
  'DAC_READ_SEARCH',
  'BPF',
  'SYS_RAWIO',
  'ALL',
];
/** A capability as a hostile record might spell it: any case, with or without CAP_. */
const capability = fc
  .tuple(fc.constantFrom(...CAPABILITIES), fc.constantFrom('as-is', 'lower', 'mixed'), fc.boolean())
  .map(([c, spelling, prefix]) => {
    const name = prefix ? `CAP_${c}` : c;
    if (spelling === 'lower') return name.toLowerCase();
    if (spelling === 'mixed') return name.charAt(0) + name.slice(1).toLowerCase();
    return name;
  });

const maybe = <T>(a: fc.Arbitrary<T>) => fc.option(a, { nil: null, freq: 6 });
/** Mostly a value every level allows, sometimes a hostile one: both outcomes stay common. */
const mostly = <A, B>(safe: fc.Arbitrary<A>, hostile: fc.Arbitrary<B>) =>
  fc.oneof({ arbitrary: safe, weight: 6 }, { arbitrary: hostile, weight: 1 });

const securityContext = fc
  .record(
    {
      privileged: mostly(fc.constantFrom<unknown>(false, null), fc.constantFrom<unknown>(true, 'true')),
      allowPrivilegeEscalation: mostly(fc.constantFrom<unknown>(false, null), fc.constant<unknown>(true)),
      capabilities: fc.record(
        {
          add: mostly(
            fc.array(fc.constantFrom('NET_BIND_SERVICE', 'CHOWN', 'KILL', 'SETUID', 'AUDIT_WRITE'), {
              maxLength: 2,
            }),
            fc.oneof(
              fc.array(capability, { minLength: 1, maxLength: 3 }),
              // Allowed capabilities, spelled as the runtime would still read them.
              fc.array(
                fc.constantFrom('chown', 'CAP_CHOWN', 'Kill', 'net_bind_service', 'CAP_NET_BIND_SERVICE'),
                {
                  minLength: 1,
                  maxLength: 2,
                },
              ),
            ),
          ),
          drop: mostly(
            fc.constant(['ALL']),
            fc.oneof(fc.constant(['all']), fc.array(capability, { maxLength: 2 })),
          ),
        },
        { requiredKeys: [] },
      ),
      seccompProfile: mostly(
        fc.constantFrom(
          { type: 'RuntimeDefault' },
          { type: 'Localhost', localhostProfile: 'profiles/p.json' },
        ),
        fc.constantFrom({ type: 'Unconfined' }, { type: 'unconfined' }),
      ),
      appArmorProfile: mostly(
        fc.constantFrom({ type: 'RuntimeDefault' }, { type: 'Localhost', localhostProfile: 'k8s-p' }),
        fc.constant({ type: 'Unconfined' }),
      ),
      seLinuxOptions: fc.record(
        {
          type: mostly(
            fc.constantFrom('', 'container_t', 'container_init_t', 'container_kvm_t'),
            fc.constantFrom('spc_t', 'unconfined_t'),
          ),
          user: mostly(fc.constant(''), fc.constant('system_u')),
          role: mostly(fc.constant(''), fc.constant('system_r')),
          level: fc.constantFrom('s0', 's0:c1,c2'),
        },
        { requiredKeys: [] },
      ),
      procMount: mostly(fc.constant('Default'), fc.constant('Unmasked')),
      runAsUser: mostly(maybe(fc.constantFrom<unknown>(1000, 65_532)), fc.constantFrom<unknown>(0, '0')),
      runAsGroup: fc.constantFrom(0, 1000),
      runAsNonRoot: mostly(maybe(fc.constant(true)), fc.constant(false)),
      readOnlyRootFilesystem: fc.boolean(),
      windowsOptions: fc.record({ hostProcess: mostly(fc.constant(false), fc.constant(true)) }),
      // A member SecurityContext does not have, as a differently cased twin.
      Privileged: fc.constant(true),
    },
    { requiredKeys: [] },
  )
  .map((sc) => {
    // The unknown member only rarely, or it hides every other outcome.
    const { Privileged, ...rest } = sc;
    return Privileged && JSON.stringify(rest).length % 13 === 0 ? sc : rest;
  });

const claimName = fc.constantFrom(
  'uploads',
  `data-${BASE}-postgres-0`,
  'data-billing-postgres-0',
  `data-${BASE}-postgres-1-postgres-0`,
  'data-billing-postgres',
);
const volumeSource = fc.oneof(
  fc.constantFrom<Record<string, unknown>>(
    { configMap: { name: 'cm' } },
    { secret: { secretName: 's' } },
    { emptyDir: {} },
    {},
    { projected: { sources: [] } },
    { downwardAPI: { items: [] } },
    { csi: { driver: 'csi.example.com' } },
    { image: { reference: 'registry.example.com/data:1' } },
    { nfs: { server: 'nfs', path: '/' } },
    { iscsi: { targetPortal: 't', iqn: 'iqn', lun: 0 } },
    { cephfs: { monitors: ['m'] } },
    { hostPath: { path: '/var/run/docker.sock' } },
    { gitRepo: { repository: 'https://example.com/r.git' } },
    { flexVolume: { driver: 'vendor/driver' } },
  ),
  claimName.map((c) => ({ persistentVolumeClaim: { claimName: c } })),
  fc
    .record(
      {
        volumeName: fc.constantFrom('pv-1', ''),
        dataSource: claimName.map((name) => ({ kind: 'PersistentVolumeClaim', name })),
      },
      { requiredKeys: [] },
    )
    .map((extra) => ({
      ephemeral: { volumeClaimTemplate: { spec: { accessModes: ['ReadWriteOnce'], ...extra } } },
    })),
);

const container = (name: string) =>
  fc.record(
    {
      name: fc.constant(name),
      image: fc.constant('busybox:1.36'),
      restartPolicy: fc.constant('Always'),
      securityContext,
    },
    { requiredKeys: ['name'] },
  );

const annotations = fc.dictionary(
  fc.constantFrom(
    'container.apparmor.security.beta.kubernetes.io/app',
    'container.apparmor.security.beta.kubernetes.io/side',
    'seccomp.security.alpha.kubernetes.io/pod',
    'example.com/note',
  ),
  fc.constantFrom('runtime/default', 'localhost/p', 'unconfined', 'docker/default', ''),
  { maxKeys: 2 },
);

const spec: fc.Arbitrary<ResourceSpecRecord> = fc
  .record(
    {
      sidecars: fc.tuple(container('side'), container('proxy')).chain(([a, b]) => fc.subarray([a, b])),
      init_containers: fc.array(
        container('init').map(({ restartPolicy: _, ...c }) => c),
        { maxLength: 1 },
      ),
      volumes: fc
        .array(volumeSource, { maxLength: 2 })
        .map((sources) => sources.map((s, i) => ({ name: `v${i}`, ...s }))),
      annotations,
      queue_cpu: fc.constant(0.5),
      volume_mounts: fc.constantFrom(
        [],
        [{ name: 'scratch', mountPath: '/s', mountPropagation: 'Bidirectional' }],
      ),
    },
    { requiredKeys: ['queue_cpu'] },
  )
  .map((s) => {
    // A Bidirectional mount needs its volume.
    if (s.volume_mounts?.length)
      return { ...s, volumes: [...(s.volumes ?? []), { name: 'scratch', emptyDir: {} }] };
    return s;
  }) as fc.Arbitrary<ResourceSpecRecord>;

const policy: fc.Arbitrary<RenderPolicy> = fc.record({
  podSecurity: fc.constantFrom('baseline' as const, 'restricted' as const),
  allowHostPath: fc.boolean(),
  allowPrivileged: fc.boolean(),
  allowedVolumeTypes: fc.subarray(['nfs', 'iscsi']),
  allowedCsiDrivers: fc.subarray(['csi.example.com']),
  allowPodCertificates: fc.boolean(),
  podMetadata: fc.constant(settings().policy.podMetadata),
});

function exemptionsOf(p: RenderPolicy): OracleExemptions {
  return { hostPath: p.allowHostPath, privileged: p.allowPrivileged, volumeTypes: p.allowedVolumeTypes };
}

function run(input: { spec: ResourceSpecRecord; policy: RenderPolicy }) {
  try {
    return renderDeployment({
      deployment: deployment({ name: BASE, spec: input.spec }),
      settings: settings({ policy: input.policy }),
    });
  } catch (err) {
    if (!(err instanceof RenderError)) throw err;
    expect(['MOORING_E_RENDER_POLICY', 'MOORING_E_RENDER_INVALID']).toContain(err.code);
    expect(err.field.length).toBeGreaterThan(0);
    return err;
  }
}

describe('fuzz: random securityContexts and volumes render compliant pods or are refused', () => {
  it('under any policy: the selected level, less its exemptions, and mooring’s rules hold', () => {
    let rendered = 0;
    let refused = 0;
    let renderedWithCapabilities = 0;
    fc.assert(
      fc.property(spec, policy, (s, p) => {
        const result = run({ spec: s, policy: p });
        if (result instanceof RenderError) {
          refused += 1;
          return;
        }
        rendered += 1;
        const ex = exemptionsOf(p);
        const templates = podTemplatesOf(result.objects);
        expect(templates.length).toBeGreaterThanOrEqual(4);
        for (const t of templates) {
          expect(pssFailures(t.spec, t.annotations, p.podSecurity, ex), t.id).toEqual([]);
          expect(mooringFailures(t.spec, BASE, ex), t.id).toEqual([]);
          if (JSON.stringify(t.spec).includes('"add":["')) renderedWithCapabilities += 1;
        }
      }),
      { numRuns: 3000 },
    );
    // Both outcomes, and the accepting path with non-trivial contexts, are exercised.
    expect(rendered).toBeGreaterThan(300);
    expect(refused).toBeGreaterThan(1000);
    expect(renderedWithCapabilities).toBeGreaterThan(60);
  }, 120_000);

  it('with no exemption: every rendered pod satisfies the plain standard', () => {
    let rendered = 0;
    const plain = policy.map((p) => ({
      ...p,
      allowHostPath: false,
      allowPrivileged: false,
      allowedVolumeTypes: [],
    }));
    fc.assert(
      fc.property(spec, plain, (s, p) => {
        const result = run({ spec: s, policy: p });
        if (result instanceof RenderError) return;
        rendered += 1;
        for (const t of podTemplatesOf(result.objects)) {
          expect(pssFailures(t.spec, t.annotations, p.podSecurity), t.id).toEqual([]);
          // A baseline pod of mooring satisfies baseline; a restricted one both levels.
          expect(pssFailures(t.spec, t.annotations, 'baseline'), t.id).toEqual([]);
          expect(mooringFailures(t.spec, BASE), t.id).toEqual([]);
        }
      }),
      { numRuns: 2000 },
    );
    expect(rendered).toBeGreaterThan(100);
  }, 120_000);

  it('the oracle can fail: a pod the renderer would refuse fails it', () => {
    const pod = (sc: Record<string, unknown>) => ({ containers: [{ name: 'c', securityContext: sc }] });
    expect(pssFailures(pod({ capabilities: { add: ['sys_admin'] } }), {}, 'baseline')).not.toEqual([]);
    expect(pssFailures(pod({ capabilities: { add: ['CHOWN'] } }), {}, 'baseline')).toEqual([]);
    expect(pssFailures(pod({ seccompProfile: { type: 'Unconfined' } }), {}, 'baseline')).not.toEqual([]);
    expect(pssFailures(pod({ runAsUser: 0 }), {}, 'baseline')).toEqual([]);
    expect(pssFailures(pod({ runAsUser: 0 }), {}, 'restricted')).not.toEqual([]);
    expect(pssFailures(pod({ privileged: true }), {}, 'baseline', { privileged: true })).toEqual([]);
    expect(mooringFailures({ volumes: [{ name: 'g', gitRepo: {} }] }, BASE)).not.toEqual([]);
    expect(
      mooringFailures(
        { volumes: [{ name: 'p', persistentVolumeClaim: { claimName: `data-${BASE}-postgres-0` } }] },
        BASE,
      ),
    ).toEqual([]);
  });
});
