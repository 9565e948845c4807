/**
 * Start-up checks and the listener heartbeat. At start the agent refuses to run, with a coded
 * reason, when a namespace it was given does not exist, when its listener does not exist, or when
 * the listener is not a `k8s` one; then it PATCHes the listener with its version and namespaces.
 * The same PATCH is repeated as a heartbeat: failures there are logged and retried, never fatal.
 */
import { safeErr } from './safe-error.ts';
import { backoffDelay, heartbeatBackoff } from '../backoff.ts';
import type { ControlPlaneClient } from '../control-plane/client.ts';
import type { ListenerRecord } from '../contract/index.ts';
import { errorCode, TerminalError } from '../errors.ts';
import type { Logger } from '../log.ts';
import { type Clock, sleep, systemClock } from './clock.ts';

export type ListenerClient = Pick<ControlPlaneClient, 'listListeners' | 'patchListener'>;

/**
 * Reads one namespace; throws a coded MooringError (MOORING_E_KUBE_NOT_FOUND when absent). Over
 * the Kubernetes API it is kube/namespaces.ts's `kubeNamespaceReader`.
 */
export type NamespaceReader = (name: string) => Promise<void>;

/** Fails with a TerminalError for each namespace that does not exist; other errors are thrown as-is. */
export async function checkNamespaces(read: NamespaceReader, namespaces: readonly string[]): Promise<void> {
  const missing: string[] = [];
  for (const ns of namespaces) {
    try {
      await read(ns);
    } catch (err) {
      if (errorCode(err) === 'MOORING_E_KUBE_NOT_FOUND') missing.push(ns);
      else throw err;
    }
  }
  if (missing.length > 0) {
    throw new TerminalError(
      'MOORING_E_KUBE_NOT_FOUND',
      `namespace${missing.length > 1 ? 's' : ''} ${missing.join(', ')} not found: create ${missing.length > 1 ? 'them' : 'it'} or fix --namespaces`,
      { details: { namespaces: missing } },
    );
  }
}

export interface RegistrationOptions {
  client: ListenerClient;
  listenerId: string;
  namespaces: readonly string[];
  /** The agent's version, reported to the control plane. */
  version: string;
}

/** The heartbeat body. */
function patchBody(o: RegistrationOptions) {
  return { version: o.version, compute_config: { k8s_namespaces: [...o.namespaces] } };
}

/**
 * Checks that the listener exists and is `k8s`, without writing (`mooring diff`, `mooring check`).
 * Throws a TerminalError with MOORING_E_LISTENER_NOT_FOUND or MOORING_E_LISTENER_NOT_K8S; other
 * failures are retryable errors. Resolves with the record (undefined when only a rejected record
 * of that id was listed).
 */
export async function findListener(
  client: Pick<ListenerClient, 'listListeners'>,
  listenerId: string,
): Promise<ListenerRecord | undefined> {
  const listing = await client.listListeners();
  const found = listing.items.find((l) => l.id === listenerId);
  if (!found && !listing.rejected.some((r) => r.id === listenerId)) {
    throw new TerminalError('MOORING_E_LISTENER_NOT_FOUND', `listener ${listenerId} does not exist`, {
      details: { listenerId },
    });
  }
  if (found && found.compute_type !== 'k8s') {
    throw new TerminalError(
      'MOORING_E_LISTENER_NOT_K8S',
      `listener ${listenerId} has compute_type "${found.compute_type}", not "k8s"`,
      { details: { listenerId } },
    );
  }
  return found;
}

/**
 * Checks that the listener exists and is `k8s` (`findListener`), then PATCHes it. Throws a
 * TerminalError with MOORING_E_LISTENER_NOT_FOUND or MOORING_E_LISTENER_NOT_K8S; other failures
 * are retryable errors.
 */
export async function registerListener(o: RegistrationOptions): Promise<ListenerRecord> {
  await findListener(o.client, o.listenerId);
  try {
    return await o.client.patchListener(o.listenerId, patchBody(o));
  } catch (err) {
    if (errorCode(err) === 'MOORING_E_CP_NOT_FOUND') {
      throw new TerminalError('MOORING_E_LISTENER_NOT_FOUND', `listener ${o.listenerId} does not exist`, {
        details: { listenerId: o.listenerId },
      });
    }
    throw err;
  }
}

export interface HeartbeatOptions extends RegistrationOptions {
  intervalMs: number;
  clock?: Clock;
  logger: Logger;
  onBeat?: (result: 'success' | 'failure') => void;
}

/**
 * PATCHes the listener every interval until `signal` aborts. A failure is retried sooner (5 s,
 * doubling, never later than the interval). Never throws.
 */
export async function runHeartbeat(o: HeartbeatOptions, signal: AbortSignal): Promise<void> {
  const clock = o.clock ?? systemClock;
  let failures = 0;
  let delayMs = o.intervalMs;
  while (!signal.aborted) {
    try {
      await sleep(clock, delayMs, signal);
    } catch {
      return;
    }
    try {
      await o.client.patchListener(o.listenerId, patchBody(o));
      failures = 0;
      delayMs = o.intervalMs;
      o.onBeat?.('success');
    } catch (err) {
      failures += 1;
      delayMs = backoffDelay(heartbeatBackoff(o.intervalMs), failures);
      o.onBeat?.('failure');
      o.logger.warn(
        { err: safeErr(err), code: errorCode(err), failures, retryInMs: delayMs },
        'listener heartbeat failed; will retry',
      );
    }
  }
}
