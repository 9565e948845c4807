/** The workloads one deployment may become, also the value of `app.kubernetes.io/component`. */
export const COMPONENTS = ['api-server', 'queue', 'orchestrator', 'executor', 'redis', 'postgres'] as const;
export type Component = (typeof COMPONENTS)[number];

/** App components: they run the deployment's image and receive the ResourceSpec customisation. */
export const APP_COMPONENTS = ['api-server', 'queue', 'orchestrator', 'executor'] as const;
export type AppComponent = (typeof APP_COMPONENTS)[number];
