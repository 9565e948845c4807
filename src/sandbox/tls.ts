/**
 * A throwaway certificate authority and serving certificate, made at start, so clients verify TLS
 * against the sandbox exactly as they would against a cluster (client-node 2 refuses plain http);
 * and the same for the client certificates of mutual-TLS tests.
 */
// @peculiar/x509 resolves its ASN.1 providers through tsyringe, which needs the Reflect metadata API.
import 'reflect-metadata';
import { webcrypto } from 'node:crypto';
import { isIP } from 'node:net';
import * as x509 from '@peculiar/x509';

/** A CA and the leaf certificate it signed, with the leaf's private key, as PEM. */
export interface IssuedCertificate {
  caPem: string;
  certPem: string;
  keyPem: string;
}

const ALG = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;

function pem(label: string, der: ArrayBuffer): string {
  const b64 = Buffer.from(der)
    .toString('base64')
    .replace(/(.{64})/g, '$1\n');
  return `-----BEGIN ${label}-----\n${b64}${b64.endsWith('\n') ? '' : '\n'}-----END ${label}-----\n`;
}

function serial(): string {
  return Buffer.from(webcrypto.getRandomValues(new Uint8Array(8)))
    .toString('hex')
    .replace(/^[89a-f]/, '1');
}

/** What `createCertificate` makes: a CA and one leaf certificate it signed. */
export interface CertificateRequest {
  /** Common name of the CA. */
  caName: string;
  /** Common name of the leaf certificate. */
  commonName: string;
  /** `server` (serverAuth, with `hosts` as subject alternative names) or `client` (clientAuth). */
  usage: 'server' | 'client';
  /** IPs or DNS names of a server certificate. */
  hosts?: readonly string[];
  /** Days the certificates are valid. */
  days: number;
}

/** Creates a CA and a leaf certificate it signed (ECDSA P-256), as PEM. */
export async function createCertificate(r: CertificateRequest): Promise<IssuedCertificate> {
  x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0]);
  const notBefore = new Date(Date.now() - 60_000);
  const notAfter = new Date(Date.now() + r.days * 24 * 3600 * 1000);
  const caKeys = (await webcrypto.subtle.generateKey(ALG, true, [
    'sign',
    'verify',
  ])) as webcrypto.CryptoKeyPair;
  const ca = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: serial(),
    name: `CN=${r.caName}`,
    notBefore,
    notAfter,
    keys: caKeys,
    signingAlgorithm: ALG,
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      await x509.SubjectKeyIdentifierExtension.create(caKeys.publicKey),
    ],
  });
  const keys = (await webcrypto.subtle.generateKey(ALG, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
  const usage =
    r.usage === 'server'
      ? [
          new x509.KeyUsagesExtension(
            x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment,
            true,
          ),
          new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth], false),
          new x509.SubjectAlternativeNameExtension(
            (r.hosts ?? []).map((h) =>
              isIP(h) ? { type: 'ip' as const, value: h } : { type: 'dns' as const, value: h },
            ),
            false,
          ),
        ]
      : [
          new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
          new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.clientAuth], false),
        ];
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: serial(),
    subject: `CN=${r.commonName}`,
    issuer: ca.subject,
    notBefore,
    notAfter,
    publicKey: keys.publicKey,
    signingKey: caKeys.privateKey,
    signingAlgorithm: ALG,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      ...usage,
      await x509.AuthorityKeyIdentifierExtension.create(ca, false),
    ],
  });
  const pkcs8 = await webcrypto.subtle.exportKey('pkcs8', keys.privateKey);
  return { caPem: ca.toString('pem'), certPem: cert.toString('pem'), keyPem: pem('PRIVATE KEY', pkcs8) };
}

/** Creates a CA and a certificate for `hosts` (IPs or DNS names) signed by it, valid for a year. */
export function createServingCertificate(hosts: string[]): Promise<IssuedCertificate> {
  return createCertificate({
    caName: 'mooring-sandbox-ca',
    commonName: 'mooring-sandbox-apiserver',
    usage: 'server',
    hosts: [...new Set(['127.0.0.1', '::1', 'localhost', ...hosts])],
    days: 365,
  });
}
