/**
 * `mooring status [--url]`: reads a running agent's `/status` and prints one row per deployment.
 */
import { writeCliError } from './cli-error.ts';
import { parseArgs } from 'node:util';
import type { AgentStatus } from '../agent/agent.ts';
import { EXIT, type CliContext } from './context.ts';
import { formatHelp } from './help-format.ts';
import { escapeControls, escapeJsonControls } from './terminal-text.ts';

const HELP = formatHelp({
  usage: 'mooring status [flags]',
  summary:
    "Prints a running agent's /status as a table: one row per deployment. The agent answers /status to loopback clients only: in a cluster, run it through kubectl port-forward (kubectl -n <ns> port-forward deploy/<release> 8080) or inside the pod (kubectl -n <ns> exec deploy/<release> -- node /app/bin/mooring.js status).",
  flags: [
    {
      left: '--url <url>',
      description: "the agent's ops address; default http://127.0.0.1:8080 (env MOORING_STATUS_URL)",
    },
    { left: '--timeout <seconds>', description: 'how long to wait for the answer; default 5' },
    { left: '--json', description: 'print the JSON document as received' },
  ],
});

/** Formats rows as left-aligned columns separated by two spaces; control characters shown escaped. */
export function formatTable(header: readonly string[], cells: readonly (readonly string[])[]): string {
  const rows = cells.map((r) => r.map(escapeControls));
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i] ?? 0)))
      .join('  ')
      .trimEnd();
  return [line(header), ...rows.map(line)].join('\n') + '\n';
}

function ago(iso: string | null, nowMs: number): string {
  if (!iso) return '-';
  const s = Math.max(0, Math.round((nowMs - Date.parse(iso)) / 1000));
  if (s < 120) return `${s}s ago`;
  if (s < 7200) return `${Math.round(s / 60)}m ago`;
  return `${Math.round(s / 3600)}h ago`;
}

/** How the agent reaches the control plane and the API server: direct or which proxy, which CA. */
function routesLine(r: NonNullable<AgentStatus['routes']>): string {
  const via = (v: string) => (v === 'direct' ? 'direct' : `through ${v}`);
  const tls = `CA ${r.controlPlane.ca}${r.controlPlane.clientCertificate ? ', client certificate' : ''}`;
  return `control plane ${via(r.controlPlane.via)} (${tls}); Kubernetes API ${via(r.kubernetes.via)}\n\n`;
}

/** `paused 2; ` when the last reconcile left paused objects alone (absent from older agents). */
function pausedText(paused: readonly string[] | undefined): string {
  return paused && paused.length > 0 ? `paused ${paused.length}; ` : '';
}

/** `  shards 0,3 of 6` on a sharded listener (absent from older agents and with one shard). */
function shardsText(shards: AgentStatus['shards']): string {
  if (!shards || shards.total <= 1) return '';
  return `  shards ${shards.held.length > 0 ? shards.held.join(',') : 'none'} of ${shards.total}`;
}

/** The table `mooring status` prints for a status document. */
export function formatStatus(doc: AgentStatus, nowMs: number): string {
  const e = escapeControls;
  const head = `listener ${e(doc.listenerId)}  identity ${e(doc.identity)}  version ${e(doc.version)}  ${doc.leader ? 'leader' : 'standby'}${shardsText(doc.shards)}${doc.dryRun ? '  dry-run' : ''}  last poll ${ago(doc.lastPollAt, nowMs)}\n\n`;
  const routes = doc.routes ? routesLine(doc.routes) : '';
  const prune = doc.pruneRefused
    ? `pruning refused since ${doc.pruneRefused.at}: ${e(doc.pruneRefused.code)}: ${e(doc.pruneRefused.message)}\n\n`
    : '';
  if (doc.deployments.length === 0) return `${head}${routes}${prune}no deployments\n`;
  const rows = doc.deployments.map((d) => [
    d.name,
    d.namespace ?? '-',
    d.controlPlaneStatus,
    d.state,
    d.revision ? d.revision.slice(0, 8) : '-',
    ago(d.lastAppliedAt, nowMs),
    pausedText(d.paused) + (d.reason ?? ''),
  ]);
  return (
    head +
    routes +
    prune +
    formatTable(['NAME', 'NAMESPACE', 'STATUS', 'STATE', 'REVISION', 'APPLIED', 'REASON'], rows)
  );
}

export async function status(argv: string[], ctx: CliContext): Promise<number> {
  let values: { url?: string; json?: boolean; help?: boolean; timeout?: string };
  try {
    values = parseArgs({
      args: argv,
      options: {
        url: { type: 'string' },
        json: { type: 'boolean' },
        help: { type: 'boolean' },
        timeout: { type: 'string' },
      },
      strict: true,
      allowPositionals: false,
    }).values;
  } catch (err) {
    writeCliError(ctx, 'status', 'MOORING_E_INPUT_INVALID', (err as Error).message.split('\n')[0] ?? '');
    return EXIT.usage;
  }
  if (values.help) {
    ctx.stdout.write(HELP);
    return EXIT.ok;
  }
  const base = (values.url ?? ctx.env.MOORING_STATUS_URL ?? 'http://127.0.0.1:8080').replace(/\/+$/, '');
  if (!URL.canParse(base) || !/^https?:/.test(base)) {
    writeCliError(ctx, 'status', 'MOORING_E_INPUT_INVALID', `--url: must be an http(s) URL (got "${base}")`);
    return EXIT.usage;
  }
  const timeoutS = Number(values.timeout ?? '5');
  if (!(timeoutS > 0)) {
    writeCliError(
      ctx,
      'status',
      'MOORING_E_INPUT_INVALID',
      `--timeout: must be a positive number of seconds (got "${values.timeout}")`,
    );
    return EXIT.usage;
  }
  let doc: AgentStatus;
  try {
    const res = await fetch(`${base}/status`, {
      signal: AbortSignal.any([ctx.signal, AbortSignal.timeout(timeoutS * 1000)]),
    });
    if (!res.ok) {
      // The agent says why in `detail` (a 403: /status answers loopback clients only).
      const detail = await res
        .json()
        .then((b) => {
          const d = (b as { detail?: unknown } | null)?.detail;
          return typeof d === 'string' ? `: ${d}` : '';
        })
        .catch(() => '');
      writeCliError(
        ctx,
        'status',
        'MOORING_E_STATUS_UNAVAILABLE',
        `${base}/status answered ${res.status}${detail}`,
      );
      return EXIT.failure;
    }
    doc = (await res.json()) as AgentStatus;
  } catch (err) {
    const e = err as { name?: string; cause?: { code?: string } };
    writeCliError(
      ctx,
      'status',
      'MOORING_E_STATUS_UNAVAILABLE',
      `cannot reach ${base}/status (${e.cause?.code ?? e.name ?? 'error'})`,
    );
    return EXIT.failure;
  }
  if (values.json) ctx.stdout.write(`${escapeJsonControls(JSON.stringify(doc, null, 2))}\n`);
  else if (!Array.isArray(doc?.deployments)) {
    writeCliError(
      ctx,
      'status',
      'MOORING_E_STATUS_UNAVAILABLE',
      `${base}/status is not a mooring status document`,
    );
    return EXIT.failure;
  } else ctx.stdout.write(formatStatus(doc, Date.now()));
  return EXIT.ok;
}
