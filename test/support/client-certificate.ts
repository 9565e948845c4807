/**
 * A CA and a client certificate it signed (extended key usage clientAuth), for tests of mutual
 * TLS: the server trusts `caPem`, the client presents `certPem` with `keyPem`.
 */
import { createCertificate, type IssuedCertificate } from '../../src/sandbox/tls.ts';

export type ClientCertificate = IssuedCertificate;

export function createClientCertificate(commonName: string): Promise<ClientCertificate> {
  return createCertificate({ caName: 'mooring-test-client-ca', commonName, usage: 'client', days: 1 });
}
