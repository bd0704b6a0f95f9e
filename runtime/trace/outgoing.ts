/**
 * The trace of an outgoing call (the media client's, `callContainer`'s): the `traceparent` of a
 * child of the calling request's span, and with an OpenTelemetry SDK registered, the client
 * span behind it.
 */
import { ids } from './ids.js';
import { loadOpenTelemetry } from './otel.js';
import { formatTraceparent } from './traceparent.js';

/** The span an outgoing call continues; `service.trace` is one. */
export interface TraceParentSource {
  readonly traceId: string;
  readonly spanId: string;
  readonly sampled: boolean;
  readonly tracestate?: string | undefined;
}

/** What an outgoing call sends, and how it reports its end. */
export interface OutgoingTrace {
  /** The header value: version 00, the trace id, this call's own span id, the sampled flag. */
  readonly traceparent: string;
  /** The parent's `tracestate`, passed on unchanged. */
  readonly tracestate: string | undefined;
  readonly traceId: string;
  /** The span id of this call, the parent id the callee sees. */
  readonly spanId: string;
  /** Ends the client span (a no-op without an SDK). */
  end(status: number | undefined, errorType?: string): void;
}

const NOTHING = (): void => {};

/** What `startOutgoing` is told of the call, for its client span. */
export interface OutgoingCall {
  method: string;
  url: string;
  /** The span's name, e.g. `POST /api/cloud_voc/get_video_list`. */
  name: string;
  /** More span attributes. */
  attributes?: Record<string, string | number | boolean>;
}

/**
 * Starts the trace of one outgoing call. With an SDK registered it is a client span (a child of
 * `parent`, or of the active context); without, a new span id under `parent`'s trace. Without
 * either, undefined: the call sends no `traceparent`.
 * @example
 * const t = await startOutgoing(service.trace, { method: 'POST', url, name: 'POST /api/cloud_voc/get_video_list' });
 * headers.traceparent = t.traceparent; ...; t.end(response.status);
 */
export async function startOutgoing(
  parent: TraceParentSource | undefined,
  call: OutgoingCall,
): Promise<OutgoingTrace | undefined> {
  const bridge = await loadOpenTelemetry();
  const tracestate = parent?.tracestate;
  const span = bridge?.startClient(parent, call);
  if (span !== undefined) {
    return {
      traceparent: formatTraceparent(span.traceId, span.spanId, span.sampled),
      tracestate,
      traceId: span.traceId,
      spanId: span.spanId,
      end: span.end,
    };
  }
  if (parent === undefined) return undefined;
  const spanId = ids.spanId();
  return {
    traceparent: formatTraceparent(parent.traceId, spanId, parent.sampled),
    tracestate,
    traceId: parent.traceId,
    spanId,
    end: NOTHING,
  };
}

/**
 * The trace and logid of a request's `service`, when `value` is one: the media client and
 * `callContainer` take the service as their logger and continue its trace without being told.
 */
export function requestContextOf(value: unknown): { trace?: TraceParentSource; logid?: string } {
  if (typeof value !== 'object' || value === null) return {};
  const { trace, logid } = value as { trace?: unknown; logid?: unknown };
  const out: { trace?: TraceParentSource; logid?: string } = {};
  if (isTraceParent(trace)) out.trace = trace;
  if (typeof logid === 'string') out.logid = logid;
  return out;
}

const TRACE_ID = /^[\da-f]{32}$/;
const SPAN_ID = /^[\da-f]{16}$/;

function isTraceParent(value: unknown): value is TraceParentSource {
  if (typeof value !== 'object' || value === null) return false;
  const { traceId, spanId, sampled } = value as Record<string, unknown>;
  return (
    typeof traceId === 'string' &&
    TRACE_ID.test(traceId) &&
    typeof spanId === 'string' &&
    SPAN_ID.test(spanId) &&
    typeof sampled === 'boolean'
  );
}

/**
 * Checks a trace given as an option (`{ trace: service.trace }`): undefined stays undefined,
 * anything else must have a 32-hex `traceId`, a 16-hex `spanId` and a boolean `sampled`.
 * @throws TypeError naming the option and the bad value
 */
export function checkTraceOption(value: unknown, option: string): TraceParentSource | undefined {
  if (value === undefined) return undefined;
  if (isTraceParent(value)) return value;
  throw new TypeError(
    `${option} must be a request's trace ({ traceId: 32 hex digits, spanId: 16 hex digits, sampled: boolean }, e.g. service.trace), got ${JSON.stringify(value)}`,
  );
}
