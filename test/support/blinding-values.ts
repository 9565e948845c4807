/**
 * Values a hostile record registers as its "secrets" to blind the agent's diagnostics for every
 * other deployment: the log line's structure, error codes, states and log keys.
 */
export const BLINDING_VALUES = [
  '"level":"error"',
  '"level":50',
  'error","code":"MOORING_E_RENDER_POLICY',
  '"code":"MOORING_E_RENDER_POLICY"',
  'MOORING_E_RENDER_POLICY',
  'MOORING_E_KUBE_FORBIDDEN',
  'Refused',
  'Progressing',
  '"state":"Refused"',
  'deploymentId',
  '","msg":"',
];
