/**
 * The metrics path: `GET /_cloudfn/metrics` answers the Prometheus text, before routing and
 * unlogged (a scrape every few seconds would drown the request log), as the health path does.
 * It exists only when metrics are on. Under `--workers` the text is the sum over the workers,
 * asked of the primary (metrics/cluster.ts).
 */
import cluster from 'node:cluster';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createError } from '../errors.js';
import { METRICS_PATH } from '../options.js';
import { askPrimary } from './cluster.js';
import type { RequestMetrics } from './registry.js';

/**
 * A before-routing hook answering GET and HEAD at `/_cloudfn/metrics` (with or without a query).
 * @example const hook = metricsHook(app.metrics) // what the http server installs when metrics are on
 */
export function metricsHook(metrics: RequestMetrics): (req: IncomingMessage, res: ServerResponse) => boolean {
  const withQuery = `${METRICS_PATH}?`;
  // A worker of `--workers` whose primary listens for the question (it does under cloudfn start).
  const text = cluster.isWorker && process.send !== undefined ? askPrimary : () => metrics.text();
  // Named, as every before hook is (http-server.ts's beforeHookNames).
  const metricsPath = (req: IncomingMessage, res: ServerResponse): boolean => {
    const url = req.url ?? '/';
    if (!(url === METRICS_PATH || url.startsWith(withQuery)) || (req.method !== 'GET' && req.method !== 'HEAD'))
      return false;
    text().then(
      (body) => {
        res.writeHead(200, {
          'content-type': metrics.contentType,
          'content-length': Buffer.byteLength(body),
          'cache-control': 'no-store',
        });
        res.end(req.method === 'HEAD' ? undefined : body);
      },
      (error: unknown) => {
        const body = `# metrics could not be gathered: ${(error as Error).message}\n`;
        res.writeHead(503, { 'content-type': 'text/plain; charset=utf-8', 'content-length': Buffer.byteLength(body) });
        res.end(req.method === 'HEAD' ? undefined : body);
      },
    );
    return true;
  };
  return metricsPath;
}

/**
 * Refuses a custom route written under `/_cloudfn/` while metrics are on: the metrics path is
 * answered before routing, so such a route would silently lose its requests. (A catch-all such
 * as a bundle's `/{*path}` is meant for every other path, and is not refused.)
 * @example checkMetricsPath(app.router.routes())
 */
export function checkMetricsPath(routes: readonly { pattern: string; target: string }[]): void {
  for (const { pattern, target } of routes) {
    if (pattern === '/_cloudfn' || pattern.startsWith('/_cloudfn/'))
      throw createError(
        'CLOUDFN_BAD_CONFIG',
        `cloudfn.config routes ${JSON.stringify(pattern)}`,
        `routes to ${target} under /_cloudfn/, where cloudfn answers ${METRICS_PATH} before routing; choose a path outside /_cloudfn/`,
      );
  }
}
