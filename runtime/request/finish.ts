/**
 * The end of every request: its one request line, its OpenTelemetry span ended (when an SDK
 * is registered), and the host told it finished (which takes it out of the in-flight count).
 * Called exactly once per request, by whoever claimed the exchange: the response writer, or
 * the pipeline when the client went away.
 */
import type { Exchange } from './exchange.js';
import { monotonicMs } from './clock.js';

/**
 * Writes the request line (`POST /hello 200 3.1 ms 512 B`) and reports the request finished.
 * @param error `CODE: message` of a runtime error answer, for the line's `error` field
 */
export function finish(x: Exchange, status: number, bytes: number, error?: string): void {
  const ms = Math.round((monotonicMs() - x.start) * 10) / 10;
  const level = status >= 500 && !isDrainRefusal(error) ? 'error' : status >= 400 ? 'warn' : 'info';
  x.host.logger.request({
    level,
    logid: x.logid,
    fn: x.functionName(),
    method: x.method,
    path: x.rawPath,
    status,
    durationMs: ms,
    bytes,
    trigger: x.trigger,
    error,
    traceId: x.traceId,
    spanId: x.spanId,
  });
  x.otel?.end(x.functionName(), x.rawPath, status);
  x.host.requestFinished(x, status, ms);
}

/**
 * A 503 of the drain (`CLOUDFN_SHUTTING_DOWN`) is what every deploy does, not a fault: logged
 * at warn, so a rolling restart pages nobody. Only 5xx answers pay this comparison.
 */
function isDrainRefusal(error: string | undefined): boolean {
  return error?.startsWith('CLOUDFN_SHUTTING_DOWN:') === true;
}
