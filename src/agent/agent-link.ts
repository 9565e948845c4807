/**
 * The agent as the parts built before it see it: the metrics, the Kubernetes client's result hook,
 * the Event recorder and the cold listing's judge are made first and handed to the agent, and
 * read it back through this link. Before `attach`, there is no agent yet: the gauges read zero,
 * no Event is recorded and no deployment is known.
 */
import type { Agent } from './agent.ts';
import type { MemoryBudget } from './memory-budget.ts';
import type { MetricsSources } from '../ops/metrics.ts';

export class AgentLink {
  #agent: Agent | undefined;

  /** Makes `agent` the one the link reads; done once, by the composition root. */
  attach(agent: Agent): Agent {
    this.#agent = agent;
    return agent;
  }

  /** What the metrics read at scrape time: the agent's figures, and the memory budget's. */
  metricsSources(version: string, memory: MemoryBudget): MetricsSources {
    return {
      version,
      deploymentStates: () => this.#agent?.status.counts() ?? {},
      pausedObjects: () => this.#agent?.status.pausedObjects() ?? 0,
      queueDepth: () => this.#agent?.queueDepth ?? 0,
      inFlight: () => this.#agent?.inFlight ?? 0,
      memory: () => memory.verdict(),
    };
  }

  /** Tells the agent the result of a Kubernetes request (its API server health). */
  observeKubeResult(result: string): void {
    this.#agent?.observeKubeResult(result);
  }

  /** Whether Events are recorded now (a standby records none). */
  recordsEvents(): boolean {
    return this.#agent?.recordsEvents === true;
  }

  /** The desired state of a deployment the agent holds. */
  desiredOf(id: string): ReturnType<Agent['desiredOf']> | undefined {
    return this.#agent?.desiredOf(id);
  }
}
