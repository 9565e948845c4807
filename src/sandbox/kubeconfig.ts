/** The kubeconfig the sandbox emits: its URL, its CA, and a bearer token (any token is accepted). */
import { stringify } from 'yaml';

export function renderKubeconfig(url: string, caPem: string, token = 'mooring-sandbox'): string {
  return stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [
      {
        name: 'sandbox',
        cluster: { server: url, 'certificate-authority-data': Buffer.from(caPem).toString('base64') },
      },
    ],
    users: [{ name: 'sandbox', user: { token } }],
    contexts: [{ name: 'sandbox', context: { cluster: 'sandbox', user: 'sandbox', namespace: 'default' } }],
    'current-context': 'sandbox',
    preferences: {},
  });
}
