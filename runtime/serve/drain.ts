/**
 * The graceful shutdown of a server: a lame-duck period while balancers notice, then the port
 * closes and in-flight requests drain. Its own module: a bundle imports it when it is asked to
 * stop, not at start.
 */
import type { Server } from 'node:http';
import type { App } from '../app.js';
import { RUNTIME_FUNCTION } from '../log/record.js';

/** Options of `shutdown`. */
export interface ShutdownOptions {
  /** ms the requests in flight get once refusing begins. @default app.options.shutdownTimeout */
  deadline?: number;
  /**
   * ms of the lame-duck period before refusing: the health paths answer 503 and requests are
   * still served, so a balancer stops sending before anything is refused. The signal path of
   * `serve` passes `app.options.drainDelay`; a programmatic close does not wait. @default 0
   */
  drainDelay?: number;
}

/**
 * Stops gracefully, in three steps:
 * 1. the lame-duck period (`drainDelay`, when above 0): the health paths answer 503 at once,
 *    requests are still served, each response closing its connection (`Connection: close`), so
 *    balancers take the server out of rotation while it still answers everything;
 * 2. the port stops accepting (a balancer retries a refused connection elsewhere, POSTs
 *    included, since nothing was sent), idle keep-alive sockets close, and a new request on a
 *    remaining socket is answered 503 (`CLOUDFN_SHUTTING_DOWN`) with `Connection: close`;
 * 3. in-flight requests get `deadline` ms to finish; then the remaining connections close.
 * Resolves true when everything finished in time. A number as `options` is the deadline.
 * @example await shutdown(app, server, { drainDelay: 5000 })
 */
export async function shutdown(app: App, server: Server, options: ShutdownOptions | number = {}): Promise<boolean> {
  const { deadline = app.options.shutdownTimeout, drainDelay = 0 } =
    typeof options === 'number' ? { deadline: options } : options;
  if (drainDelay > 0) {
    app.beginDrain();
    app.logger.line(
      'info',
      '',
      RUNTIME_FUNCTION,
      `lame duck for ${drainDelay} ms: the health paths answer 503 while requests are still served`,
      { drainDelay },
    );
    await new Promise((resolve) => setTimeout(resolve, drainDelay));
  }
  app.beginShutdown();
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeIdleConnections();
  let timer: NodeJS.Timeout | undefined;
  const inTime = await Promise.race([
    app.drained().then(() => true),
    new Promise<boolean>((resolve) => {
      timer = setTimeout(resolve, deadline, false);
    }),
  ]);
  clearTimeout(timer);
  if (!inTime) {
    app.logger.line(
      'warn',
      '',
      RUNTIME_FUNCTION,
      `shutdown deadline of ${deadline} ms passed with ${app.inflight} requests in flight; closing their connections`,
    );
  }
  server.closeAllConnections();
  await closed;
  app.logger.flush();
  return inTime;
}
