/**
 * Whether an OpenTelemetry SDK is registered, and the bridge to it (otel-bridge.ts), loaded the
 * first time one is. Nothing here imports `@opentelemetry/api`: with no SDK registered, a
 * request pays one property read of a global, and the API is never loaded.
 */
import type * as Bridge from './otel-bridge.js';

/**
 * Where `@opentelemetry/api` 1.x keeps what an SDK registered (its `_global`): the `trace`
 * and `metrics` entries appear when a tracer or meter provider is set globally, and go again
 * with `trace.disable()` / `metrics.disable()`. Every copy of the API shares this key, so an
 * SDK registered through the application's own copy is seen too.
 */
const API_GLOBAL = Symbol.for('opentelemetry.js.api.1');

interface ApiGlobal {
  trace?: unknown;
  metrics?: unknown;
}

/**
 * True when a tracer or meter provider is registered. Read per request, so an SDK registered
 * after the app was created is seen by the next request (about 2 ns: one symbol-keyed read).
 */
export function otelRegistered(): boolean {
  const registered = (globalThis as { [API_GLOBAL]?: ApiGlobal })[API_GLOBAL];
  return registered !== undefined && (registered.trace !== undefined || registered.metrics !== undefined);
}

export type OtelBridge = typeof Bridge;

let bridge: OtelBridge | undefined;
let loading: Promise<OtelBridge | undefined> | undefined;

/**
 * The bridge when an SDK is registered and the bridge is loaded; undefined otherwise. The first
 * call that sees an SDK starts loading it (a dynamic import of a few milliseconds): requests
 * until then have their trace ids but no spans. `loadOpenTelemetry()` waits for it.
 */
export function otelBridge(): OtelBridge | undefined {
  if (!otelRegistered()) return undefined;
  if (bridge !== undefined) return bridge;
  void loadOpenTelemetry();
  return undefined;
}

/**
 * Loads the bridge when an SDK is registered; resolves with it, or undefined when no SDK is
 * registered (and then loads nothing). `serve` awaits it before listening, so a server started
 * after the SDK traces its first request.
 * @example await loadOpenTelemetry()
 */
export function loadOpenTelemetry(): Promise<OtelBridge | undefined> {
  if (!otelRegistered()) return Promise.resolve(undefined);
  if (bridge !== undefined) return Promise.resolve(bridge);
  loading ??= import('./otel-bridge.js').then(
    (loaded) => (bridge = loaded),
    (error: unknown) => {
      process.stderr.write(
        `cloudfn: an OpenTelemetry SDK is registered but the bridge failed to load: ${String(error)}\n`,
      );
      return undefined;
    },
  );
  return loading;
}
