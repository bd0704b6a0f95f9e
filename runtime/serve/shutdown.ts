/**
 * The one signal policy of every long-running command: the first SIGTERM/SIGINT/SIGHUP stops
 * gracefully (drain.ts) and exits 0, a second exits 1 at once, optionally also when the
 * parent process goes away (parent-gone.ts, imported then).
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
  // The parent watch (parent-gone.ts) is imported only when asked for: a bundle never reads it.
  // What it compares against is taken now, so a parent gone while it loads is still seen.
  let removeParent: (() => void) | undefined;
  let removed = false;
  if (options.parent === true) {
    const seen = { ppid: process.ppid, connected: process.connected };
    void import('./parent-gone.js').then(({ onParentGone }) => {
      if (removed) return;
      removeParent = onParentGone(() => {
        if (stopping) return;
        stopping = true;
        options.logger.line('info', '', RUNTIME_FUNCTION, 'the parent process exited: stopping');
        void (options.stopWithoutParent ?? options.stop)().then(() => exit(0));
      }, seen);
    });
  }
  return () => {
    removed = true;
    process.off('SIGTERM', onSignal);
    process.off('SIGINT', onSignal);
    process.off('SIGHUP', onSignal);
    removeParent?.();
  };
}
