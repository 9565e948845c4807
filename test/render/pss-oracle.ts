/**
 * An independent reading of the Kubernetes Pod Security Standards
 * (https://kubernetes.io/docs/concepts/security/pod-security-standards/), written for the tests
 * from the standard's tables and sharing no code with src/render: if the renderer's own check
 * is wrong, this one disagrees and the tests fail. Deliberately literal: each control lists its
 * restricted fields and allowed values as the standard does, and a value is allowed only if it
 * is one of them (so a capability must be spelled as the standard spells it).
 *
 * Also mooring's rules beyond the standard (docs/configuration.md, "Policy"), for the volume
 * types and claims a rendered pod may use.
 */

export type Level = 'baseline' | 'restricted';

/** The operator's exemptions, by the controls they switch off. */
export interface OracleExemptions {
  /** HostPath Volumes; hostPath under restricted Volume Types. */
  hostPath?: boolean;
  /** Privileged Containers, Privilege Escalation, Capabilities. */
  privileged?: boolean;
  /** Extra volume types (also allowed under restricted Volume Types). */
  volumeTypes?: readonly string[];
}

// biome-ignore lint/suspicious/noExplicitAny: walking arbitrary rendered JSON
type Any = any;

const BASELINE_ADD = [
  'AUDIT_WRITE',
  'CHOWN',
  'DAC_OVERRIDE',
  'FOWNER',
  'FSETID',
  'KILL',
  'MKNOD',
  'NET_BIND_SERVICE',
  'SETFCAP',
  'SETGID',
  'SETPCAP',
  'SETUID',
  'SYS_CHROOT',
];
const SAFE_SYSCTLS = [
  'kernel.shm_rmid_forced',
  'net.ipv4.ip_local_port_range',
  'net.ipv4.ip_unprivileged_port_start',
  'net.ipv4.tcp_syncookies',
  'net.ipv4.ping_group_range',
  'net.ipv4.ip_local_reserved_ports',
  'net.ipv4.tcp_keepalive_time',
  'net.ipv4.tcp_fin_timeout',
  'net.ipv4.tcp_keepalive_intvl',
  'net.ipv4.tcp_keepalive_probes',
];
const SELINUX_TYPES = ['container_t', 'container_init_t', 'container_kvm_t', 'container_engine_t'];
const RESTRICTED_VOLUMES = [
  'configMap',
  'csi',
  'downwardAPI',
  'emptyDir',
  'ephemeral',
  'image',
  'persistentVolumeClaim',
  'projected',
  'secret',
];

const unset = (v: unknown) => v === undefined || v === null;
const isIn = (v: unknown, allowed: readonly unknown[]) => allowed.includes(v);

/** Every container of the pod: containers, initContainers, ephemeralContainers. */
function allContainers(spec: Any): { where: string; c: Any }[] {
  const out: { where: string; c: Any }[] = [];
  for (const list of ['containers', 'initContainers', 'ephemeralContainers']) {
    const items = spec?.[list];
    if (items === undefined || items === null) continue;
    if (!Array.isArray(items)) {
      out.push({ where: list, c: { securityContext: 'not-a-list' } });
      continue;
    }
    items.forEach((c: Any, i: number) => {
      out.push({ where: `${list}[${i}]`, c });
    });
  }
  return out;
}

function volumeSources(v: Any): string[] {
  const keys = Object.keys(v ?? {}).filter((k) => k !== 'name' && !unset(v[k]));
  return keys.length === 0 ? ['emptyDir'] : keys;
}

/**
 * The controls of `level` the pod fails, as "Control: field" strings; [] when it satisfies the
 * level. `ex` switches off the exempted controls.
 */
export function pssFailures(spec: Any, annotations: Any, level: Level, ex: OracleExemptions = {}): string[] {
  const fails: string[] = [];
  const fail = (control: string, field: string) => fails.push(`${control}: ${field}`);
  const podSc = spec?.securityContext;
  const containers = allContainers(spec);
  const sc = (c: Any) => c?.securityContext;

  // ---- Baseline ----
  // HostProcess
  if (!isIn(podSc?.windowsOptions?.hostProcess, [undefined, null, false]))
    fail('HostProcess', 'spec.securityContext.windowsOptions.hostProcess');
  for (const { where, c } of containers) {
    if (!isIn(sc(c)?.windowsOptions?.hostProcess, [undefined, null, false]))
      fail('HostProcess', `${where}.securityContext.windowsOptions.hostProcess`);
  }
  // Host Namespaces
  for (const f of ['hostNetwork', 'hostPID', 'hostIPC']) {
    if (!isIn(spec?.[f], [undefined, null, false])) fail('Host Namespaces', `spec.${f}`);
  }
  // Privileged Containers
  if (!ex.privileged) {
    for (const { where, c } of containers) {
      if (!isIn(sc(c)?.privileged, [undefined, null, false]))
        fail('Privileged Containers', `${where}.privileged`);
    }
  }
  // Capabilities
  if (!ex.privileged) {
    for (const { where, c } of containers) {
      const add = sc(c)?.capabilities?.add;
      if (unset(add)) continue;
      if (!Array.isArray(add) || add.some((cap: unknown) => !isIn(cap, BASELINE_ADD)))
        fail('Capabilities', `${where}.capabilities.add`);
    }
  }
  // HostPath Volumes
  if (!ex.hostPath) {
    for (const v of spec?.volumes ?? []) {
      if (!unset(v?.hostPath)) fail('HostPath Volumes', `volume ${v?.name}`);
    }
  }
  // Host Ports
  for (const { where, c } of containers) {
    for (const p of c?.ports ?? []) {
      if (!isIn(p?.hostPort, [undefined, null, 0])) fail('Host Ports', `${where}.ports`);
    }
  }
  // AppArmor
  const appArmorOk = (t: unknown) => isIn(t, [undefined, null, 'RuntimeDefault', 'Localhost']);
  if (!appArmorOk(podSc?.appArmorProfile?.type)) fail('AppArmor', 'spec.securityContext.appArmorProfile');
  for (const { where, c } of containers) {
    if (!appArmorOk(sc(c)?.appArmorProfile?.type)) fail('AppArmor', `${where}.appArmorProfile`);
  }
  for (const [k, v] of Object.entries(annotations ?? {})) {
    if (!k.startsWith('container.apparmor.security.beta.kubernetes.io/')) continue;
    if (!(v === 'runtime/default' || (typeof v === 'string' && v.startsWith('localhost/'))))
      fail('AppArmor', `annotation ${k}`);
  }
  // SELinux
  const seLinuxOk = (o: Any) =>
    unset(o) ||
    (isIn(o.type, [undefined, null, '', ...SELINUX_TYPES]) &&
      isIn(o.user, [undefined, null, '']) &&
      isIn(o.role, [undefined, null, '']));
  if (!seLinuxOk(podSc?.seLinuxOptions)) fail('SELinux', 'spec.securityContext.seLinuxOptions');
  for (const { where, c } of containers) {
    if (!seLinuxOk(sc(c)?.seLinuxOptions)) fail('SELinux', `${where}.seLinuxOptions`);
  }
  // /proc Mount Type
  for (const { where, c } of containers) {
    if (!isIn(sc(c)?.procMount, [undefined, null, 'Default'])) fail('/proc Mount Type', `${where}.procMount`);
  }
  // Seccomp (baseline: never Unconfined)
  const seccompBaselineOk = (t: unknown) => isIn(t, [undefined, null, 'RuntimeDefault', 'Localhost']);
  if (!seccompBaselineOk(podSc?.seccompProfile?.type)) fail('Seccomp', 'spec.securityContext.seccompProfile');
  for (const { where, c } of containers) {
    if (!seccompBaselineOk(sc(c)?.seccompProfile?.type)) fail('Seccomp', `${where}.seccompProfile`);
  }
  // Sysctls
  for (const s of podSc?.sysctls ?? []) {
    if (!isIn(s?.name, SAFE_SYSCTLS)) fail('Sysctls', `sysctl ${s?.name}`);
  }
  // Every container's securityContext must be an object when set (the API would refuse otherwise).
  for (const { where, c } of containers) {
    const s = sc(c);
    if (!unset(s) && (typeof s !== 'object' || Array.isArray(s))) fail('securityContext', where);
  }

  if (level === 'baseline') return fails;

  // ---- Restricted ----
  // Volume Types
  const allowedVolumes = [
    ...RESTRICTED_VOLUMES,
    ...(ex.volumeTypes ?? []),
    ...(ex.hostPath ? ['hostPath'] : []),
  ];
  for (const v of spec?.volumes ?? []) {
    for (const source of volumeSources(v)) {
      if (!allowedVolumes.includes(source)) fail('Volume Types', `volume ${v?.name}: ${source}`);
    }
  }
  // Privilege Escalation
  if (!ex.privileged) {
    for (const { where, c } of containers) {
      if (sc(c)?.allowPrivilegeEscalation !== false) fail('Privilege Escalation', where);
    }
  }
  // Running as Non-root
  const podNonRoot = podSc?.runAsNonRoot;
  if (!isIn(podNonRoot, [undefined, null, true]))
    fail('Running as Non-root', 'spec.securityContext.runAsNonRoot');
  for (const { where, c } of containers) {
    const v = sc(c)?.runAsNonRoot;
    if (!isIn(v, [undefined, null, true])) fail('Running as Non-root', `${where}.runAsNonRoot`);
    if (podNonRoot !== true && v !== true) fail('Running as Non-root', `${where}.runAsNonRoot (pod unset)`);
  }
  // Running as Non-root user
  const userOk = (u: unknown) => unset(u) || (typeof u === 'number' && Number.isInteger(u) && u !== 0);
  if (!userOk(podSc?.runAsUser)) fail('Running as Non-root user', 'spec.securityContext.runAsUser');
  for (const { where, c } of containers) {
    if (!userOk(sc(c)?.runAsUser)) fail('Running as Non-root user', `${where}.runAsUser`);
  }
  // Seccomp (restricted: RuntimeDefault or Localhost, on the pod or on every container)
  const set = (t: unknown) => t === 'RuntimeDefault' || t === 'Localhost';
  const podSet = set(podSc?.seccompProfile?.type);
  for (const { where, c } of containers) {
    const t = sc(c)?.seccompProfile?.type;
    if (!podSet && !set(t)) fail('Seccomp', `${where}.seccompProfile (pod unset)`);
  }
  // Capabilities (restricted)
  if (!ex.privileged) {
    for (const { where, c } of containers) {
      const caps = sc(c)?.capabilities;
      if (!Array.isArray(caps?.drop) || !caps.drop.includes('ALL'))
        fail('Capabilities', `${where}.capabilities.drop`);
      const add = caps?.add;
      if (!unset(add) && (!Array.isArray(add) || add.some((cap: unknown) => cap !== 'NET_BIND_SERVICE')))
        fail('Capabilities', `${where}.capabilities.add (restricted)`);
    }
  }
  return fails;
}

/**
 * Mooring's rules beyond the standard on a rendered pod: volume types (the restricted list, the
 * extra ones, hostPath when allowed; gitRepo and flexVolume never), no ephemeral claim bound to a
 * named PersistentVolume, no claim of another deployment's bundled Postgres; and, unless
 * privilege is allowed, no allowPrivilegeEscalation: true and no Bidirectional mount.
 */
export function mooringFailures(spec: Any, ownBase: string, ex: OracleExemptions = {}): string[] {
  const fails: string[] = [];
  const allowed = new Set([
    ...RESTRICTED_VOLUMES,
    ...(ex.volumeTypes ?? []),
    ...(ex.hostPath ? ['hostPath'] : []),
  ]);
  const foreignPostgres = (claim: unknown) => {
    if (typeof claim !== 'string') return false;
    const m = /^data-(.+)-postgres-\d+$/.exec(claim);
    return m !== null && m[1] !== ownBase;
  };
  for (const v of spec?.volumes ?? []) {
    for (const source of volumeSources(v)) {
      if (source === 'gitRepo' || source === 'flexVolume') fails.push(`never: ${source}`);
      else if (!allowed.has(source)) fails.push(`volume type: ${source}`);
    }
    if (foreignPostgres(v?.persistentVolumeClaim?.claimName)) fails.push('foreign postgres claim');
    const claimSpec = v?.ephemeral?.volumeClaimTemplate?.spec;
    if (claimSpec?.volumeName) fails.push('ephemeral volumeName');
    for (const ref of [claimSpec?.dataSource, claimSpec?.dataSourceRef]) {
      if (ref?.kind === 'PersistentVolumeClaim' && foreignPostgres(ref?.name))
        fails.push('clone of foreign postgres claim');
    }
  }
  if (!ex.privileged) {
    for (const { where, c } of allContainers(spec)) {
      if (c?.securityContext?.allowPrivilegeEscalation === true) fails.push(`escalation: ${where}`);
      for (const m of c?.volumeMounts ?? []) {
        if (m?.mountPropagation === 'Bidirectional') fails.push(`bidirectional: ${where}`);
      }
    }
  }
  return fails;
}

/** The pod templates of rendered objects (Deployments and StatefulSets), with their object's id. */
export function podTemplatesOf(objects: readonly Any[]): { id: string; spec: Any; annotations: Any }[] {
  return objects
    .filter((o) => o?.spec?.template)
    .map((o) => ({
      id: `${o.kind}/${o.metadata.name}`,
      spec: o.spec.template.spec,
      annotations: o.spec.template.metadata?.annotations,
    }));
}
