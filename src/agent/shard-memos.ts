/**
 * The restart memo per shard (ADR 0010, ADR 0015): with N > 1 shards, shard i's memo is the
 * ConfigMap `<restart-memo>-<i>`, written by that shard's holder alone (on shutdown, on giving the
 * shard back, and on the memo schedule) and read by whoever holds it at a cold listing. With one
 * shard it is the single memo of old. Each memo keeps only its shard's deployments.
 */
import type { ColdPasses } from './cold-passes.ts';
import type { ColdPass } from './cold-start.ts';
import { codeFingerprint } from './code-fingerprint.ts';
import type { KnownRevision } from '../reconcile/desired-resolver.ts';
import {
  NO_RESTART_MEMO,
  RestartMemoKeeper,
  type RestartMemoKeeperOptions,
  type RestartMemoStore,
} from './restart-memo-keeper.ts';
import type { AgentDeps } from './agent-deps.ts';
import { shardMemoName, shardOf } from './shards.ts';

/** The keeper's options, with the store of a memo by its ConfigMap name. */
export type ShardMemosOptions = Omit<RestartMemoKeeperOptions, 'store'> & {
  storeOf: (name: string) => RestartMemoStore;
};

/** What the agent does with its restart memos: ShardMemos, or NO_SHARD_MEMOS when none is kept. */
export type ShardMemosUse = Pick<ShardMemos, 'vouch' | 'load' | 'revisions' | 'save' | 'agentHooks'>;

/** No restart memo (none configured, or dry run): nothing read, nothing saved, no hooks. */
export const NO_SHARD_MEMOS: ShardMemosUse = Object.freeze({ ...NO_RESTART_MEMO, agentHooks: () => ({}) });

export class ShardMemos {
  readonly #shards: number;
  readonly #name: string;
  readonly #options: ShardMemosOptions;
  readonly #keepers = new Map<number, RestartMemoKeeper>();
  #held: number[] = [];

  /** `name`: `--restart-memo`, the ConfigMap of shard 0 of 1 (see `shardMemoName`). */
  constructor(shards: number, name: string, options: ShardMemosOptions) {
    this.#shards = shards;
    this.#name = name;
    // One reading of the code for every shard's fingerprint.
    const code = (options.code ?? codeFingerprint)();
    code.catch(() => {});
    this.#options = { ...options, code: () => code };
  }

  /** What the agent calls: save on stopping or giving a shard back, and each change of shards held. */
  agentHooks(): Pick<AgentDeps, 'saveRestartMemo' | 'onShards'> {
    return {
      saveRestartMemo: (passes, shards) => this.save(passes, shards),
      onShards: (held) => this.holding(held),
    };
  }

  /** The shards held now (the agent tells each change): those whose memos are read and saved. */
  holding(held: number[]): void {
    this.#held = [...held];
  }

  /** Tells `passes` which deployments the held shards' memos vouch for (RestartMemoKeeper.vouch). */
  async vouch(passes: ColdPasses): Promise<void> {
    await Promise.all(this.#targets().map((s) => this.#keeper(s).vouch(passes)));
  }

  /**
   * Fills the apply memo and `passes` from the held shards' memos; returns the objects that
   * memos of another build held (RestartMemoKeeper.load).
   */
  async load(passes: ColdPasses): Promise<number> {
    const others = await Promise.all(this.#targets().map((s) => this.#keeper(s).load(passes)));
    return others.reduce((a, b) => a + b, 0);
  }

  /** The final revisions the held shards' memos knew. */
  async revisions(): Promise<ReadonlyMap<string, KnownRevision> | undefined> {
    const maps = await Promise.all(this.#targets().map((s) => this.#keeper(s).revisions()));
    const known = maps.filter((m) => m !== undefined);
    if (known.length <= 1) return known[0];
    return new Map(known.flatMap((m) => [...m]));
  }

  /** Saves each of `shards` (default: the held ones) with its own deployments' passes. */
  async save(passes: Iterable<[string, ColdPass]>, shards?: readonly number[]): Promise<void> {
    const all = [...passes];
    const targets = this.#targets(shards);
    if (this.#shards <= 1) return this.#keeper(0).save(all);
    await Promise.all(
      targets.map((s) => this.#keeper(s).save(all.filter(([id]) => shardOf(id, this.#shards) === s))),
    );
  }

  #targets(shards?: readonly number[]): readonly number[] {
    return this.#shards <= 1 ? [0] : (shards ?? this.#held);
  }

  #keeper(shard: number): RestartMemoKeeper {
    let keeper = this.#keepers.get(shard);
    if (!keeper) {
      const store = this.#options.storeOf(shardMemoName(this.#name, shard, this.#shards));
      keeper = new RestartMemoKeeper({ ...this.#options, store });
      this.#keepers.set(shard, keeper);
    }
    return keeper;
  }
}
