/**
 * Loading the metrics module, and prom-client with it, only when metrics are on: prom-client is
 * an optional peer dependency, so a missing one becomes CLOUDFN_METRICS_UNAVAILABLE (the one
 * message saying to install it) instead of an import crash. Used by `serve` and `cloudfn dev`.
 */
import { createError } from '../errors.js';
import type * as Metrics from '../metrics/index.js';

/**
 * Imports the metrics module (and prom-client) or rejects with why it cannot be had. In a
 * bundle it is a chunk (about 70 kB minified) read only then (src/build/bundle.ts).
 * @example const { loadMetrics, metricsHook } = await importMetrics()
 */
export async function importMetrics(): Promise<typeof Metrics> {
  try {
    return await import('../metrics/index.js');
  } catch (error) {
    throw createError('CLOUDFN_METRICS_UNAVAILABLE', (error as Error).message.split('\n')[0] ?? 'not found');
  }
}
