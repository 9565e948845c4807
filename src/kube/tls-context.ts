/**
 * The TLS side of the connections to the API server: one secure context, made when the client is,
 * for every connection. Given the CA, certificate and key instead, Node makes a context for each
 * connection (an OpenSSL context, the PEM parsed again), and the agent holds dozens of connections
 * at once (a watch per kind and namespace, besides its requests): each such context stays
 * allocated with its connection and the handshakes that make them raise malloc's high-water
 * (bench/README.md, "N = 1,000: TLS connections and malloc's heap").
 */
import { createSecureContext } from 'node:tls';
import { MooringError } from '../errors.ts';
import type { TlsSettings } from './kubeconfig.ts';

/**
 * The connect options of every connection: the per-connection settings as given (server name,
 * whether to verify, a test's lookup) and one secure context holding the CA and the client
 * certificate. Material OpenSSL refuses (not PEM, a key that is not the certificate's) fails
 * here, at start, with MOORING_E_CONFIG_INVALID, rather than on every request.
 */
export function sharedTlsConnect<T extends TlsSettings>(
  tls: T,
): Omit<T, 'ca' | 'cert' | 'key'> & {
  secureContext: ReturnType<typeof createSecureContext>;
} {
  const { ca, cert, key, ...perConnection } = tls;
  try {
    return { ...perConnection, secureContext: createSecureContext({ ca, cert, key }) };
  } catch (err) {
    // OpenSSL's reason names the routine and what it expected, never the material.
    const reason = (err as Error).message;
    throw new MooringError(
      'MOORING_E_CONFIG_INVALID',
      `kubeconfig could not be loaded: TLS material refused: ${reason}`,
      {
        cause: err,
      },
    );
  }
}
