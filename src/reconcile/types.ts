/** The shapes reconcile is called with: its dependencies, settings and input. */
import type { Logger } from 'pino';
import type { DeploymentRecord, RevisionRecord } from '../contract/index.ts';
import type { KubeObject } from '../objects/kube-object.ts';
import type { InventoryResources, ObjectFinder } from '../kube/observed-state.ts';
import type { Selecting } from '../kube/foreign-objects.ts';
import type { RenderResult, RenderSettings } from '../render/index.ts';
import type { ConvergedPass } from './converged.ts';
import type { Health } from './health.ts';
import type { EventRecorder } from './events.ts';

/**
 * What reconcile needs of the resource manager (ResourceManager implements it): the calls the
 * agent's ObservedState wraps, one interface for both.
 */
export type Resources = InventoryResources;

export interface ReconcileSettings {
  listenerId: string;
  /** The namespaces this agent may write to: anything else is refused before any write. */
  namespaces: readonly string[];
  /** Delete PVCs with their deployment (off: data is kept). */
  deleteVolumes: boolean;
  /** Allow delete + recreate of a StatefulSet whose immutable fields changed. */
  recreateStatefulSets: boolean;
  /** Preview: every write is sent with dryRun=All; no events. */
  dryRun: boolean;
}

export interface ReconcileDeps {
  resources: Resources;
  events?: EventRecorder;
  logger: Logger;
  /** Milliseconds since the epoch, for the duration logged per reconcile (Date.now by default). */
  clock?: () => number;
  settings: ReconcileSettings;
  /**
   * Whether a live object is still the version verified converged for an input key (the
   * ResourceManager's apply memo). Without it every pass renders (converged.ts).
   */
  verified?: (obj: KubeObject, key: string) => boolean;
  /**
   * A converged pass a cold start's listing found for this deployment (ADR 0008), consulted once
   * the listing is in when the input carries none: the first reconcile after a restart then takes
   * the shortcut too.
   */
  coldPass?: (deploymentId: string, key: string, namespace: string) => ConvergedPass | undefined;
  /**
   * A converged pass with its health, vouched for by a judge-only cold listing that found every
   * object of the deployment at the version the restart memo holds (cold-start.ts, `takeListed`;
   * ADR 0010). Consulted before anything is listed: such a pass neither lists nor renders.
   */
  listedPass?: (
    deploymentId: string,
    key: string,
    namespace: string,
  ) => Promise<{ pass: ConvergedPass; health: Health } | undefined>;
  /**
   * The listener's objects by kind, namespace and name, from the agent's latest listing
   * (`ObservedState.finder`); read for whose the objects a deployment refers to are
   * (identity.ts). Without one (or before any listing), each object the deployment refers to is
   * looked up by name, metadata only (`Resources.findOwned`).
   */
  finder?: () => Promise<ObjectFinder | undefined>;
  /**
   * The selectors of the Services and NetworkPolicies mooring does not manage in a namespace
   * (kube/foreign-objects.ts), read only for a deployment whose record labels its pods.
   * Without it, record labels are not checked against them.
   */
  foreignSelectors?: (namespace: string) => Promise<readonly Selecting[]>;
  /**
   * The claims of a namespace labelled for another listener, by name (kube/foreign-objects.ts):
   * the agent's listing holds only this listener's. Read only when a rendered deployment refers
   * to or would adopt a claim its listing does not hold.
   */
  foreignClaims?: (namespace: string) => Promise<ReadonlyMap<string, KubeObject>>;
  /** The renderer (injected in tests); renderDeployment by default. */
  render?: (input: {
    deployment: DeploymentRecord;
    revision?: RevisionRecord | undefined;
    settings: RenderSettings;
  }) => RenderResult;
}

export interface ReconcileInput {
  deployment: DeploymentRecord;
  /** The revision to run, chosen by the caller with `chooseRevision`. */
  revision?: RevisionRecord | undefined;
  /**
   * Reads the chosen revision when the caller resolved it without reading it (a restart memo knew
   * it: `DesiredDeployment.pendingRevision`); called only when the pass renders.
   */
  loadRevision?: (() => Promise<RevisionRecord>) | undefined;
  settings: RenderSettings;
  /**
   * What the objects are rendered from, e.g. the poller's desired-state hash (the settings are
   * fixed for a process): equal keys render equal objects, which lets the resync skip comparing
   * objects already verified at their current version (src/kube/object-version.ts).
   */
  inputKey?: string;
  /** What this deployment's previous pass returned as `converged`, if it did (converged.ts). */
  converged?: ConvergedPass | undefined;
}
