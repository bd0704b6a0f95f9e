/**
 * What cloudfn tells OpenTelemetry, through `@opentelemetry/api` only: a server span per request
 * and the `http.server.request.duration` histogram (semantic conventions for HTTP, stable), and a
 * client span per outgoing call. Loaded by otel.ts only once an SDK is registered; the tracer and
 * the histogram are remade when another provider is registered.
 */
import {
  type Attributes,
  type Context,
  context,
  createTraceState,
  type Histogram,
  type MeterProvider,
  metrics,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  type Tracer,
  type TracerProvider,
  trace,
} from '@opentelemetry/api';
import { type IncomingTrace, incomingTracestate } from './tracestate.js';

/** The instrumentation scope of every span and instrument. */
const SCOPE = 'cloudfn';
const API_GLOBAL = Symbol.for('opentelemetry.js.api.1');

/** HTTP methods the conventions name; others are `_OTHER` with the method in `http.request.method_original`. */
const KNOWN_METHODS: ReadonlySet<string> = new Set([
  'CONNECT',
  'DELETE',
  'GET',
  'HEAD',
  'OPTIONS',
  'PATCH',
  'POST',
  'PUT',
  'TRACE',
]);

/** The boundaries the conventions advise for `http.server.request.duration`, in seconds. */
const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10];

const TRACE_ID = /^[\da-f]{32}$/;
const SPAN_ID = /^[\da-f]{16}$/;

function registered(): { trace?: unknown; metrics?: unknown } | undefined {
  return (globalThis as { [API_GLOBAL]?: { trace?: unknown; metrics?: unknown } })[API_GLOBAL];
}

let tracerProvider: TracerProvider | undefined;
let tracer: Tracer | undefined;

/** The tracer of the registered provider, or undefined when only a meter provider is registered. */
function currentTracer(): Tracer | undefined {
  if (registered()?.trace === undefined) return undefined;
  const global = trace.getTracerProvider() as TracerProvider & { getDelegate?: () => TracerProvider };
  // The global is a proxy whose delegate is the SDK's provider; a new SDK means a new delegate.
  const provider = global.getDelegate?.() ?? global;
  if (provider !== tracerProvider) {
    tracerProvider = provider;
    tracer = provider.getTracer(SCOPE);
  }
  return tracer;
}

let meterProvider: MeterProvider | undefined;
let histogram: Histogram | undefined;

function durationHistogram(): Histogram | undefined {
  if (registered()?.metrics === undefined) return undefined;
  const provider = metrics.getMeterProvider();
  if (provider !== meterProvider) {
    meterProvider = provider;
    histogram = provider.getMeter(SCOPE).createHistogram('http.server.request.duration', {
      unit: 's',
      description: 'Duration of HTTP server requests.',
      advice: { explicitBucketBoundaries: DURATION_BUCKETS },
    });
  }
  return histogram;
}

/**
 * The fields of a request the bridge reads and, when it starts a span, sets (the Exchange has
 * them); its `tracestate` header is checked here (tracestate.ts).
 */
export interface TracedRequest extends IncomingTrace {
  readonly method: string;
  traceId: string;
  spanId: string;
  parentSpanId: string | undefined;
  traceFlags: number;
}

function methodAttributes(method: string, into: Attributes): Attributes {
  if (KNOWN_METHODS.has(method)) into['http.request.method'] = method;
  else {
    into['http.request.method'] = '_OTHER';
    into['http.request.method_original'] = method;
  }
  return into;
}

/** The server side of one request: its span (when a tracer is registered) and its context. */
export class ServerTelemetry {
  readonly span: Span | undefined;
  readonly context: Context;
  readonly #method: string;
  readonly #start: number;

  constructor(request: TracedRequest) {
    this.#method = request.method;
    this.#start = performance.now();
    const tracer = currentTracer();
    if (tracer === undefined) {
      this.span = undefined;
      this.context = ROOT_CONTEXT;
      return;
    }
    // A request starts from the root, not from whatever context the listener was called in.
    let parent = ROOT_CONTEXT;
    if (request.parentSpanId !== undefined) {
      const tracestate = incomingTracestate(request);
      parent = trace.setSpanContext(ROOT_CONTEXT, {
        traceId: request.traceId,
        spanId: request.parentSpanId,
        traceFlags: request.traceFlags,
        isRemote: true,
        ...(tracestate === undefined ? {} : { traceState: createTraceState(tracestate) }),
      });
    }
    const method = KNOWN_METHODS.has(request.method) ? request.method : 'HTTP';
    const span = tracer.startSpan(
      method,
      { kind: SpanKind.SERVER, attributes: methodAttributes(request.method, { 'url.scheme': 'http' }) },
      parent,
    );
    this.span = span;
    this.context = trace.setSpan(parent, span);
    // The span's ids are the request's: its log lines and outgoing calls name this span. (Ids
    // from a custom IdGenerator that are not lower-case hex would break the log line: kept out.)
    const ids = span.spanContext();
    if (TRACE_ID.test(ids.traceId) && SPAN_ID.test(ids.spanId)) {
      request.traceId = ids.traceId;
      request.spanId = ids.spanId;
      request.traceFlags = ids.traceFlags;
    }
  }

  /** Runs the handler in the span's context, so spans it starts (or libraries start) are its children. */
  run<A extends unknown[], R>(fn: (...args: A) => R, ...args: A): R {
    return context.with(this.context, fn, undefined, ...args);
  }

  /**
   * Ends the span (route, status, error status for 5xx) and records the duration.
   * @param route the function's name, '' when no function matched
   */
  end(route: string, path: string, status: number): void {
    const seconds = (performance.now() - this.#start) / 1000;
    const span = this.span;
    if (span !== undefined) {
      span.setAttribute('url.path', path);
      span.setAttribute('http.response.status_code', status);
      if (route !== '') {
        span.setAttribute('http.route', route);
        span.updateName(`${KNOWN_METHODS.has(this.#method) ? this.#method : 'HTTP'} ${route}`);
      }
      if (status >= 500) {
        span.setAttribute('error.type', String(status));
        span.setStatus({ code: SpanStatusCode.ERROR });
      }
      span.end();
    }
    const duration = durationHistogram();
    if (duration !== undefined) {
      const attributes = methodAttributes(this.#method, {
        'url.scheme': 'http',
        'http.response.status_code': status,
      });
      if (route !== '') attributes['http.route'] = route;
      if (status >= 500) attributes['error.type'] = String(status);
      duration.record(seconds, attributes);
    }
  }
}

/** Starts the server telemetry of a request; it may replace the request's span id (and trace id) with its span's. */
export function startServer(request: TracedRequest): ServerTelemetry {
  return new ServerTelemetry(request);
}

/** The parent an outgoing call continues: `service.trace` fits. */
export interface ParentIds {
  traceId: string;
  spanId: string;
  sampled: boolean;
  tracestate?: string | undefined;
}

/** A client span: its ids (for the `traceparent` sent) and its end. */
export interface ClientSpan {
  traceId: string;
  spanId: string;
  sampled: boolean;
  /** Ends the span with the answer's status, or with what went wrong (`error.type`) when none came. */
  end(status: number | undefined, errorType?: string): void;
}

/**
 * Starts a client span for an outgoing HTTP call, a child of `parent` (or of the active context
 * when there is none); undefined when no tracer provider is registered.
 */
export function startClient(
  parent: ParentIds | undefined,
  call: { method: string; url: string; name: string; attributes?: Attributes },
): ClientSpan | undefined {
  const tracer = currentTracer();
  if (tracer === undefined) return undefined;
  let ctx = context.active();
  if (parent !== undefined) {
    ctx = trace.setSpanContext(ctx, {
      traceId: parent.traceId,
      spanId: parent.spanId,
      traceFlags: parent.sampled ? 1 : 0,
      isRemote: false,
      ...(parent.tracestate === undefined ? {} : { traceState: createTraceState(parent.tracestate) }),
    });
  }
  const url = new URL(call.url);
  const attributes: Attributes = methodAttributes(call.method, {
    'url.full': call.url,
    'server.address': url.hostname,
    'server.port': url.port === '' ? (url.protocol === 'https:' ? 443 : 80) : Number(url.port),
    ...call.attributes,
  });
  const span = tracer.startSpan(call.name, { kind: SpanKind.CLIENT, attributes }, ctx);
  const ids = span.spanContext();
  return {
    traceId: ids.traceId,
    spanId: ids.spanId,
    sampled: (ids.traceFlags & 1) === 1,
    end(status, errorType) {
      if (status !== undefined) span.setAttribute('http.response.status_code', status);
      const error = errorType ?? (status !== undefined && status >= 400 ? String(status) : undefined);
      if (error !== undefined) {
        span.setAttribute('error.type', error);
        span.setStatus({ code: SpanStatusCode.ERROR });
      }
      span.end();
    },
  };
}
