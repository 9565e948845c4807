/**
 * How the agent reaches the control plane and the Kubernetes API: the TLS material for the
 * control plane read from `--control-plane-ca-file` / `--control-plane-client-*-file`, and the
 * description `/status` and the start-up log give of both routes (which proxy, which CA bundle),
 * never with proxy credentials or key material.
 */
import { readFileSync } from 'node:fs';
import type { AgentConfig } from '../config.ts';
import { MooringError } from '../errors.ts';
import type { Logger } from '../log.ts';

/** TLS options for the control-plane client. */
export interface ControlPlaneTls {
  ca?: string;
  cert?: string;
  key?: string;
}

/** The routes as `/status` shows them. */
export interface AgentRoutes {
  controlPlane: {
    /** `direct`, or the proxy's `scheme://host:port`. */
    via: string;
    /** The CA bundle in use: the file given, or the system roots (and NODE_EXTRA_CA_CERTS). */
    ca: string;
    /** Whether a client certificate is presented (mTLS). */
    clientCertificate: boolean;
  };
  kubernetes: { via: string };
}

type Settings = Pick<
  AgentConfig,
  'controlPlaneCaFile' | 'controlPlaneClientCertFile' | 'controlPlaneClientKeyFile'
>;

function readPem(
  file: string,
  flag: string,
  env: string,
  marker: RegExp,
  read: (p: string) => string,
): string {
  let text: string;
  try {
    text = read(file);
  } catch (err) {
    const code = (err as { code?: string }).code ?? 'unreadable';
    throw new MooringError('MOORING_E_CONFIG_INVALID', `--${flag} (${env}): cannot read "${file}" (${code})`);
  }
  // Only the file name is echoed: never any of its content (the key file holds a secret).
  if (!marker.test(text))
    throw new MooringError(
      'MOORING_E_CONFIG_INVALID',
      `--${flag} (${env}): "${file}" holds no PEM ${marker.source.includes('KEY') ? 'private key' : 'certificate'}`,
    );
  return text;
}

const CERT = /-----BEGIN CERTIFICATE-----/;
const KEY = /-----BEGIN [A-Z ]*PRIVATE KEY-----/;

/** Reads the control plane's TLS files; throws MOORING_E_CONFIG_INVALID naming the flag. */
export function controlPlaneTls(
  config: Settings,
  read: (p: string) => string = (p) => readFileSync(p, 'utf8'),
): ControlPlaneTls {
  const tls: ControlPlaneTls = {};
  if (config.controlPlaneCaFile)
    tls.ca = readPem(
      config.controlPlaneCaFile,
      'control-plane-ca-file',
      'MOORING_CONTROL_PLANE_CA_FILE',
      CERT,
      read,
    );
  if (config.controlPlaneClientCertFile && config.controlPlaneClientKeyFile) {
    tls.cert = readPem(
      config.controlPlaneClientCertFile,
      'control-plane-client-cert-file',
      'MOORING_CONTROL_PLANE_CLIENT_CERT_FILE',
      CERT,
      read,
    );
    tls.key = readPem(
      config.controlPlaneClientKeyFile,
      'control-plane-client-key-file',
      'MOORING_CONTROL_PLANE_CLIENT_KEY_FILE',
      KEY,
      read,
    );
  }
  return tls;
}

/** The routes for `/status` and the start-up log. */
export function describeRoutes(
  config: Settings,
  env: Readonly<Record<string, string | undefined>>,
  controlPlaneProxy: string | undefined,
  kubeProxy: string | undefined,
): AgentRoutes {
  const extra = env.NODE_EXTRA_CA_CERTS?.trim();
  return {
    controlPlane: {
      via: controlPlaneProxy ?? 'direct',
      ca: config.controlPlaneCaFile ?? `system roots${extra ? ` + NODE_EXTRA_CA_CERTS ${extra}` : ''}`,
      clientCertificate: Boolean(config.controlPlaneClientCertFile && config.controlPlaneClientKeyFile),
    },
    kubernetes: { via: kubeProxy ?? 'direct' },
  };
}

/** Says, before any request, how each API will be reached (not that it was: start-up says that). */
export function logRoutes(logger: Logger, routes: ReturnType<typeof describeRoutes>): void {
  const via = (v: string) => (v === 'direct' ? 'directly' : `through the proxy ${v}`);
  logger.info(
    { routes },
    `control plane to be reached ${via(routes.controlPlane.via)} (CA: ${routes.controlPlane.ca}); Kubernetes API ${via(routes.kubernetes.via)}`,
  );
}
