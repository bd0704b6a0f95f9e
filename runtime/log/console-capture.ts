/**
 * `console.log/info/warn/error/debug` as log lines (the `captureConsole` option): a call made
 * while a request runs becomes a JSON line like `service.log`'s, with that request's logid,
 * function and trace ids; a call outside any request becomes a line without them. The request
 * is found through an AsyncLocalStorage the pipeline enters around the handler
 * (request/handle.ts), so concurrent requests never take each other's logid.
 *
 * `console` is one object per process, so the patch is process state: installs stack, the
 * newest one's logger takes the lines made outside a request, and removing the last one puts
 * the original methods back.
 */
import type { Exchange } from '../request/exchange.js';
import type { Logger } from './logger.js';
import type { LogLevel, LogRecord } from './record.js';
import { toRecord } from './record.js';

// A builtin through process.getBuiltinModule rather than an ESM import, as in record.ts: the
// namespace of an imported builtin is built at start-up, on every cold start.
const { AsyncLocalStorage } = process.getBuiltinModule('node:async_hooks');

/**
 * The request a piece of code runs for; entered by the pipeline only while `console` is
 * captured (`consoleCaptured`). On node 20 and 22 the first `run` turns on async_hooks' promise
 * tracking for the process, the cost the bench row "GET tiny function with console capture
 * on" measures; with capture off, or an app embedded without `captureConsole` installed
 * (createApp), it is never entered and costs nothing.
 */
export const requestContext = new AsyncLocalStorage<Exchange>();

const LEVELS = ['log', 'info', 'warn', 'error', 'debug'] as const satisfies readonly LogLevel[];
type ConsoleLevel = (typeof LEVELS)[number];

/** The loggers installed, newest last; lines outside a request go to the newest. */
const installed: Logger[] = [];
let originals: Record<ConsoleLevel, (...values: unknown[]) => void> | undefined;

function write(level: ConsoleLevel, values: unknown[]): void {
  const x = requestContext.getStore();
  if (x !== undefined) {
    x.host.logger.values(level, x.logid, x.fn?.name ?? '', values, x);
    return;
  }
  const logger = installed[installed.length - 1];
  if (logger === undefined) return;
  // Outside a request there is no logid, function or trace to give: the line goes without them.
  const { logid: _logid, function: _fn, ...rest } = toRecord(level, '', '', values);
  logger.write(rest as LogRecord);
}

/**
 * True while `console` is captured by some install: only then does a request's handler run
 * inside `requestContext`.
 */
export function consoleCaptured(): boolean {
  return originals !== undefined;
}

/**
 * Sends `console.*` to `logger` (and, inside a request, to that request's logger) until the
 * returned function is called.
 * @example const restore = captureConsole(app.logger); app.onShutdown(restore)
 */
export function captureConsole(logger: Logger): () => void {
  installed.push(logger);
  if (originals === undefined) {
    const saved = {} as Record<ConsoleLevel, (...values: unknown[]) => void>;
    for (const level of LEVELS) {
      saved[level] = console[level];
      console[level] = (...values: unknown[]) => write(level, values);
    }
    originals = saved;
  }
  let removed = false;
  return () => {
    if (removed) return;
    removed = true;
    installed.splice(installed.lastIndexOf(logger), 1);
    if (installed.length > 0 || originals === undefined) return;
    for (const level of LEVELS) console[level] = originals[level];
    originals = undefined;
  };
}
