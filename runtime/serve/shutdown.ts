/**
 * Stopping a server: the graceful shutdown (a lame-duck period while balancers notice, then
 * the port closes and in-flight requests drain) and the one signal policy of every
 * long-running command (the first SIGTERM/SIGINT/SIGHUP stops gracefully and exits 0, a second
 * exits 1 at once), optionally also when the parent process goes away.
 */
import type { Server } from 'node:http';
import type { App } from '../app.js';
import type { Logger } from '../log/logger.js';
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

/** Options of `exitOnSignals`. */
export interface SignalOptions {
  /** Where the first signal is reported. */
  logger: Logger;
  /** The graceful stop; the process exits 0 when it settles. */
  stop: () => Promise<unknown>;
  /** What the first signal logs, e.g. `SIGTERM received: stopping the dev server`. */
  message: (signal: NodeJS.Signals) => string;
  /** @default process.exit */
  exit?: (code: number) => void;
  /**
   * Also stop when the parent process goes away: its IPC channel closes, or this process is
   * re-parented (checked every 500 ms). For dev tools run by `npm run dev`: killing npm by its
   * PID must not leave the server holding the port. Not for production servers, whose parent
   * may leave on purpose. @default false
   */
  parent?: boolean;
}

/** How often the parent's pid is compared; a check costs one property read. */
const PARENT_CHECK_MS = 500;

/**
 * Stops gracefully and exits 0 on the first SIGTERM or SIGINT; a second signal exits 1 at
 * once. Returns a function that removes the handlers.
 * @example exitOnSignals({ logger, stop: () => shutdown(app, server), message: (s) => `${s} received` })
 */
export function exitOnSignals(options: SignalOptions): () => void {
  const exit = options.exit ?? ((code: number) => process.exit(code));
  let stopping = false;
  const onSignal = (signal: NodeJS.Signals): void => {
    if (stopping) return exit(1);
    stopping = true;
    options.logger.line('info', '', RUNTIME_FUNCTION, options.message(signal));
    void options.stop().then(() => exit(0));
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  process.on('SIGHUP', onSignal);
  const removeParent =
    options.parent === true
      ? onParentGone(() => {
          if (stopping) return;
          stopping = true;
          options.logger.line('info', '', RUNTIME_FUNCTION, 'the parent process exited: stopping');
          void options.stop().then(() => exit(0));
        })
      : undefined;
  return () => {
    process.off('SIGTERM', onSignal);
    process.off('SIGINT', onSignal);
    process.off('SIGHUP', onSignal);
    removeParent?.();
  };
}

/**
 * Calls `gone` once the parent process is gone (its IPC channel closes, or this process is
 * re-parented); returns how to stop watching.
 * @example const stop = onParentGone(() => server.close())
 */
export function onParentGone(gone: () => void): () => void {
  const parent = process.ppid;
  const onDisconnect = (): void => gone();
  if (process.connected) process.on('disconnect', onDisconnect);
  // A process started by init (pid 1, e.g. PID 1's child in a container) cannot tell.
  const timer =
    parent > 1
      ? setInterval(() => {
          if (process.ppid !== parent) gone();
        }, PARENT_CHECK_MS).unref()
      : undefined;
  return () => {
    clearInterval(timer);
    process.off('disconnect', onDisconnect);
  };
}
