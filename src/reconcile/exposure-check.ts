/**
 * The start-up check of the exposure kind: the kind set in the render settings must be served by
 * the cluster (HTTPRoute needs the Gateway API CRDs). Served: it joins every inventory listing,
 * so its objects are pruned like the others. Not served: one warning line, and the agent renders
 * without exposure rather than failing the apply of every deployment with a `custom_url`.
 */
import { errorCode, MooringError } from '../errors.ts';
import { EXPOSURE_KIND_INFOS, type KindInfo, kindInfo } from '../objects/kinds.ts';
import type { Logger } from '../log.ts';
import type { RenderSettings } from '../render/index.ts';

const KIND_OF = { ingress: 'Ingress', httproute: 'HTTPRoute' } as const;

/** What the check needs: discovery, and the resource manager's listing to extend. */
export interface ExposureCheckDeps {
  /** Whether the cluster serves a kind (discovery: kube/exposure-discovery.ts's `servesKind`). */
  serves(info: KindInfo): Promise<boolean>;
  resources: { alsoList(kinds: KindInfo[]): void; listOnceMore(kinds: KindInfo[]): void };
  logger: Logger;
}

/** Returns the settings to render with: `settings`, or the same with exposure off when the kind is absent. */
export async function checkExposureKind(
  deps: ExposureCheckDeps,
  settings: RenderSettings,
): Promise<RenderSettings> {
  const checked = await checkConfiguredKind(deps, settings);
  await listLeftovers(deps, checked);
  return checked;
}

/**
 * The exposure kinds served but not in use join the first listing once: objects of them that an
 * earlier setting left (exposure switched to the other kind, or turned off) are then pruned by
 * their deployments' reconciles instead of routing traffic on. A discovery that fails skips that
 * kind.
 */
async function listLeftovers(deps: ExposureCheckDeps, settings: RenderSettings): Promise<void> {
  const inUse = settings.exposure.kind === 'none' ? undefined : KIND_OF[settings.exposure.kind];
  const candidates = EXPOSURE_KIND_INFOS.filter((info) => info.kind !== inUse);
  const served = await Promise.all(
    candidates.map((info) =>
      deps.serves(info).catch((err: unknown) => {
        deps.logger.info(
          { kind: info.kind, code: errorCode(err) },
          `${info.kind}: discovery failed; objects an earlier exposure setting left of it are not looked for`,
        );
        return false;
      }),
    ),
  );
  const others = candidates.filter((_, i) => served[i]);
  if (others.length > 0) deps.resources.listOnceMore(others);
}

async function checkConfiguredKind(
  deps: ExposureCheckDeps,
  settings: RenderSettings,
): Promise<RenderSettings> {
  const { exposure } = settings;
  if (exposure.kind === 'none') return settings;
  const info = kindInfo(KIND_OF[exposure.kind]);
  if (!info) throw new MooringError('MOORING_E_INTERNAL', `no kind table row for exposure ${exposure.kind}`);
  if (await deps.serves(info)) {
    deps.resources.alsoList([info]);
    return settings;
  }
  const code = 'MOORING_E_EXPOSURE_UNAVAILABLE';
  deps.logger.warn(
    { code, kind: info.kind, apiVersion: info.apiVersion },
    `exposure.kind is ${exposure.kind} but the cluster does not serve ${info.apiVersion} ${info.kind}: ` +
      'no deployment is exposed until it is installed and the agent restarted',
  );
  return { ...settings, exposure: { kind: 'none' } };
}

/**
 * The render settings the agent renders with: its settings' own, until the start-up check finds
 * the exposure kind not served and turns exposure off (the one change, made by `check`).
 */
export class StartUpRenderSettings {
  #current: RenderSettings;

  constructor(settings: RenderSettings) {
    this.#current = settings;
  }

  /** The settings to render with now. */
  get current(): RenderSettings {
    return this.#current;
  }

  /** Whether deployments are exposed at their custom_url now (two may then not share one). */
  exposesUrls(): boolean {
    return this.#current.exposure.kind !== 'none';
  }

  /** The start-up check of the exposure kind (`checkExposureKind`); may only warn. */
  async check(deps: ExposureCheckDeps): Promise<void> {
    this.#current = await checkExposureKind(deps, this.#current);
  }
}
