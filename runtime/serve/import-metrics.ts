/**
 * Loading the metrics module, and prom-client with it, only when metrics are on: prom-client is
 * an optional peer dependency, so a missing one becomes CLOUDFN_METRICS_UNAVAILABLE (the one
 * message saying to install it) instead of an import crash. Used by `serve` and `cloudfn dev`;
 * `serve` imports this file only when metrics are on or wanted (issue 44).
 */
import type { App } from '../app.js';
import type { Logger } from '../log/logger.js';
import { RUNTIME_FUNCTION } from '../log/record.js';
import type * as Metrics from '../metrics/index.js';
import { createMetricsError } from '../metrics/errors.js';
import type { BeforeHook } from './http-server.js';

/**
 * Imports the metrics module (and prom-client) or rejects with why it cannot be had. In a
 * bundle it is a chunk (about 70 kB minified) read only then (src/build/bundle.ts).
 * @example const { loadMetrics, metricsHook } = await importMetrics()
 */
export async function importMetrics(): Promise<typeof Metrics> {
  try {
    return await import('../metrics/index.js');
  } catch (error) {
    throw createMetricsError('CLOUDFN_METRICS_UNAVAILABLE', (error as Error).message.split('\n')[0] ?? 'not found');
  }
}

/**
 * Loads the metrics (and prom-client) for a server whose metrics are on, and then refuses a
 * route under `/_cloudfn/`, where the metrics path is answered before routing; with
 * `whenInstalled`, also when off, and a missing prom-client only warns. Resolves with the
 * metrics path's hook. `serve` calls it only when metrics are on or `whenInstalled`.
 * @example const hook = await startMetrics(app, logger, false)
 */
export async function startMetrics(app: App, logger: Logger, whenInstalled: boolean): Promise<BeforeHook | undefined> {
  let metrics: Awaited<ReturnType<typeof importMetrics>>;
  try {
    // Imported only when on: a server without metrics loads none of it.
    metrics = await importMetrics();
  } catch (error) {
    if (!whenInstalled) throw error;
    if (app.options.metrics)
      logger.line('warn', '', RUNTIME_FUNCTION, `metrics panel off: ${(error as Error).message}`);
    return undefined;
  }
  if (app.options.metrics) metrics.checkMetricsPath(app.router.routes());
  app.useMetrics(metrics.loadMetrics(app));
  return metrics.metricsHook(app.metrics!);
}
