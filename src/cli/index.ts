import type { Command } from './context.ts';

interface CommandEntry {
  summary: string;
  load: () => Promise<Command>;
}

/** Every subcommand, loaded lazily so that `mooring render` never pays for the server code. */
export const COMMANDS: Record<string, CommandEntry> = {
  run: { summary: 'run the agent (the product)', load: async () => (await import('./run.ts')).run },
  sandbox: {
    summary: 'start control plane, Kubernetes API and agent together: the demo',
    load: async () => (await import('./sandbox.ts')).sandbox,
  },
  render: {
    summary: 'print the Kubernetes objects of one deployment, offline',
    load: async () => (await import('./render.ts')).render,
  },
  diff: {
    summary: "print one cycle's change set against the cluster; write nothing",
    load: async () => (await import('./diff.ts')).diff,
  },
  check: {
    summary: 'check, writing nothing, that the agent can work with these settings (a preflight)',
    load: async () => (await import('./check.ts')).check,
  },
  status: {
    summary: "print a running agent's /status as a table",
    load: async () => (await import('./status.ts')).status,
  },
  cp: {
    summary: 'a small control-plane client: list deployments, change an image, create a listener',
    load: async () => (await import('./cp.ts')).cp,
  },
  completion: {
    summary: 'print a bash or zsh completion script',
    load: async () => (await import('./completion.ts')).completion,
  },
  'control-plane': {
    summary: 'serve the reference control plane (SQLite)',
    load: async () => (await import('./control-plane.ts')).controlPlane,
  },
  'kube-api': {
    summary: 'serve the sandbox Kubernetes API',
    load: async () => (await import('./kube-api.ts')).kubeApi,
  },
};

export function usage(version: string): string {
  const width = Math.max(...Object.keys(COMMANDS).map((n) => n.length));
  const lines = Object.entries(COMMANDS).map(([name, c]) => `  ${name.padEnd(width)}  ${c.summary}`);
  return [
    `mooring ${version}: a pull-based Kubernetes deployment agent`,
    '',
    'Usage: mooring <command> [flags]   (mooring <command> --help for its flags)',
    '',
    'Commands:',
    ...lines,
    '',
  ].join('\n');
}
