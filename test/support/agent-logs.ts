/**
 * What agent processes wrote, kept after they are gone: a test searches it for a secret canary or
 * an error code once the agent that wrote it has been killed and replaced.
 */

/** Every line the agent processes given this object wrote, by stream. */
export class AgentLogs {
  stdout = '';
  stderr = '';
  /** Both streams, as one text to search. */
  all(): string {
    return `${this.stdout}\n${this.stderr}`;
  }
  /** The JSON lines of stdout (pino), parsed; other lines are skipped. */
  lines(): Record<string, unknown>[] {
    const out: Record<string, unknown>[] = [];
    for (const line of this.stdout.split('\n')) {
      if (!line.startsWith('{')) continue;
      try {
        out.push(JSON.parse(line) as Record<string, unknown>);
      } catch {
        // a line cut by SIGKILL: not JSON, still searched as text by all()
      }
    }
    return out;
  }
}
