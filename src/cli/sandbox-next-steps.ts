/**
 * What the demo prints once its deployment is up: how to look at the objects, and next steps that
 * work exactly as printed from the repository (`npx mooring ...`) while the sandbox runs, the
 * agent's own settings included, so `mooring diff` and `mooring check` see what the agent sees.
 */

/** The demo's next steps, each a command that works as printed while the sandbox runs. */
export function nextSteps(o: {
  kubeconfigPath: string;
  namespace: string;
  opsUrl: string;
  cpUrl: string;
  keyFile: string;
  agentFlags: readonly string[];
  dir: string;
}): string {
  const cp = `npx mooring cp --url ${o.cpUrl} --api-key-file ${o.keyFile}`;
  return [
    '',
    'look at them with kubectl (pods do not run in the sandbox: no logs, no port-forward):',
    `  kubectl --kubeconfig ${o.kubeconfigPath} get deploy,sts,svc,secret -n ${o.namespace}`,
    `  kubectl --kubeconfig ${o.kubeconfigPath} get ingress -A`,
    'next steps, in another terminal of this directory:',
    `  npx mooring status --url ${o.opsUrl}`,
    `  ${cp} deployments list`,
    `  ${cp} deployments patch hello-app --image ghcr.io/example/app:1.1.0`,
    `  npx mooring diff ${o.agentFlags.join(' ')}`,
    `  npx mooring check ${o.agentFlags.join(' ')}`,
    `Ctrl-C stops the sandbox and removes ${o.dir} (it holds the API key).`,
  ].join('\n');
}
