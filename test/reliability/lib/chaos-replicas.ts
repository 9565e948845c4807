/**
 * The agent replicas of a chaos run: one (the default), or several electing shard holders on
 * Leases. Each incarnation of a replica gets an identity of its own (`replica-<i>-<n>`), as a
 * restarted pod gets a new name, so the request log tells a killed replica's writes from its
 * successor's. A replica that exits without being killed is counted and restarted.
 */
import type { AgentLogs } from '../../support/agent-logs.ts';
import type { AgentProcess } from '../../support/agent-process.ts';
import { sleep } from '../../support/wait.ts';
import { spawnAgent } from './stack.ts';

/** Several replicas sharding one listener. */
export interface Sharding {
  replicas: number;
  shards: number;
  leaseDurationSeconds: number;
}

export class ChaosReplicas {
  /** Exits nobody caused (crashes): must be none. */
  readonly unexpectedExits: string[] = [];
  readonly #agents: (AgentProcess | undefined)[];
  readonly #incarnations: number[];
  readonly #killing = new Set<number>();
  #stopping = false;
  private readonly env: (overrides?: Record<string, string>) => Record<string, string>;
  private readonly logs: AgentLogs;
  private readonly log: (line: string) => void;
  private readonly sharding: Sharding | undefined;

  constructor(
    env: (overrides?: Record<string, string>) => Record<string, string>,
    logs: AgentLogs,
    log: (line: string) => void,
    sharding?: Sharding,
  ) {
    this.env = env;
    this.logs = logs;
    this.log = log;
    this.sharding = sharding;
    const n = sharding?.replicas ?? 1;
    this.#agents = Array.from({ length: n }, () => undefined);
    this.#incarnations = Array.from({ length: n }, () => 0);
  }

  get count(): number {
    return this.#agents.length;
  }

  startAll(): void {
    for (let i = 0; i < this.count; i++) this.#start(i);
  }

  #start(i: number): void {
    this.#incarnations[i] = (this.#incarnations[i] ?? 0) + 1;
    const s = this.sharding;
    const overrides: Record<string, string> = s
      ? {
          MOORING_POD_NAME: `replica-${i}-${this.#incarnations[i]}`,
          MOORING_LEADER_ELECTION: 'true',
          MOORING_SHARDS: String(s.shards),
          MOORING_LEASE_DURATION: String(s.leaseDurationSeconds),
        }
      : {};
    const agent = spawnAgent(this.env(overrides), this.logs);
    this.#agents[i] = agent;
    void agent.exited.then(({ code, signal }) => {
      if (this.#stopping || this.#killing.has(i) || this.#agents[i] !== agent) return;
      this.unexpectedExits.push(`replica ${i}: code ${code} signal ${signal}`);
      this.log(`replica ${i} exited on its own (code ${code}, signal ${signal}); restarting`);
      this.#start(i);
    });
  }

  /**
   * SIGKILLs replica `i`, waits `downMs`, starts its successor. With one replica this is the
   * single agent's kill and restart.
   */
  async killAndRestart(i: number, downMs: number): Promise<void> {
    this.#killing.add(i);
    try {
      await this.#agents[i]?.kill();
      await sleep(downMs);
    } finally {
      this.#killing.delete(i);
    }
    this.#start(i);
  }

  /** SIGTERM every replica (SIGKILL after `graceMs`). */
  async stopAll(graceMs: number): Promise<void> {
    this.#stopping = true;
    await Promise.all(this.#agents.map((a) => a?.stop(graceMs)));
  }
}
