import { describe, expect, it } from 'vitest';
import { controlPlaneTls, describeRoutes } from '../../src/agent/routes.ts';
import { parseAgentConfig } from '../../src/config.ts';

const CERT = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';
const KEY = '-----BEGIN PRIVATE KEY-----\nkey-material-canary\n-----END PRIVATE KEY-----\n';
const files: Record<string, string> = {
  '/ca.crt': CERT,
  '/tls.crt': CERT,
  '/tls.key': KEY,
  '/junk': 'hello',
};
const read = (p: string) => {
  const text = files[p];
  if (text === undefined) throw Object.assign(new Error('nope'), { code: 'ENOENT' });
  return text;
};

describe('control-plane TLS files', () => {
  it('reads the CA and the client pair', () => {
    expect(
      controlPlaneTls(
        {
          controlPlaneCaFile: '/ca.crt',
          controlPlaneClientCertFile: '/tls.crt',
          controlPlaneClientKeyFile: '/tls.key',
        },
        read,
      ),
    ).toEqual({ ca: CERT, cert: CERT, key: KEY });
    expect(controlPlaneTls({}, read)).toEqual({});
  });

  it('names the flag and the file, never the content', () => {
    expect(() => controlPlaneTls({ controlPlaneCaFile: '/missing' }, read)).toThrow(
      '--control-plane-ca-file (MOORING_CONTROL_PLANE_CA_FILE): cannot read "/missing" (ENOENT)',
    );
    expect(() => controlPlaneTls({ controlPlaneCaFile: '/junk' }, read)).toThrow(
      /"\/junk" holds no PEM certificate/,
    );
    let message = '';
    try {
      controlPlaneTls(
        { controlPlaneClientCertFile: '/tls.crt', controlPlaneClientKeyFile: '/tls.crt' },
        read,
      );
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toMatch(/--control-plane-client-key-file .*holds no PEM private key/);
    expect(message).not.toContain('MIIB');
  });

  it('wants the client certificate and its key together', () => {
    const parsed = parseAgentConfig({
      argv: ['--control-plane-client-cert-file', '/tls.crt'],
      env: {
        MOORING_CONTROL_PLANE_URL: 'https://cp.example',
        MOORING_API_KEY: 'k',
        MOORING_LISTENER_ID: '11111111-1111-4111-8111-111111111111',
        MOORING_NAMESPACES: 'apps',
      },
    });
    expect(parsed).toMatchObject({ ok: false });
    expect(parsed.ok ? [] : parsed.problems).toContain(
      '--control-plane-client-cert-file (MOORING_CONTROL_PLANE_CLIENT_CERT_FILE) and --control-plane-client-key-file (MOORING_CONTROL_PLANE_CLIENT_KEY_FILE): set both or neither',
    );
  });
});

describe('routes as /status shows them', () => {
  it('says direct or which proxy, and which CA bundle', () => {
    expect(describeRoutes({}, { NODE_EXTRA_CA_CERTS: '/etc/corp.pem' }, undefined, 'http://p:3128')).toEqual({
      controlPlane: {
        via: 'direct',
        ca: 'system roots + NODE_EXTRA_CA_CERTS /etc/corp.pem',
        clientCertificate: false,
      },
      kubernetes: { via: 'http://p:3128' },
    });
  });
});
