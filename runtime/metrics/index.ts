/**
 * The metrics of a server, as one module that `serve()` imports only when metrics are on
 * (serve/start.ts hides the specifier from esbuild, so bundles built without `metrics` carry
 * none of it, nor prom-client).
 */
export { checkMetricsPath, metricsHook } from './endpoint.js';
export { loadMetrics, RequestMetrics } from './registry.js';
export type { MetricsSource } from './registry.js';
