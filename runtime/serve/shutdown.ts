/**
 * The one signal policy of every long-running command: the first SIGTERM/SIGINT/SIGHUP stops
 * gracefully (drain.ts) and exits 0, a second exits 1 at once, optionally also when the
 * parent process goes away.
 */
import type { Logger } from '../log/logger.js';
import { RUNTIME_FUNCTION } from '../log/record.js';

/** Options of `exitOnSignals`. */
export interface SignalOptions {
  /** Where the first signal is reported. */
  logger: Logger;
  /** The graceful stop; the process exits 0 when it settles. */
  stop: () => Promise<unknown>;
  /**
   * The stop when the parent went away (`parent`): no balancer routes to a server whose npm
   * parent was killed, so a lame-duck period would only keep the port busy. @default stop
   */
  stopWithoutParent?: () => Promise<unknown>;
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
          void (options.stopWithoutParent ?? options.stop)().then(() => exit(0));
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
