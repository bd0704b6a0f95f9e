/**
 * A call's request and per-call options, checked before anything is sent: `env_id` filled from
 * the client's `envId`, the request validated, and the appid, trace and logid checked.
 */
import { checkTraceOption, requestContextOf, type TraceParentSource } from '../../runtime/trace/outgoing.js';
import { createMediaError, MediaValidationError } from './errors.js';
import type { MediaLogger, ResolvedMediaOptions } from './options.js';
import type { Operation, RequestOf } from './types.js';
import { validateRequest } from './validate.js';

/** Per-call options of every method. */
export interface CallOptions {
  /** Aborts the call (and its waits); the method rejects with MEDIA_ABORTED. */
  signal?: AbortSignal;
  /** Overrides the client's `timeoutMs` for each attempt of this call. */
  timeoutMs?: number;
  /**
   * Overrides the client's `logger` for this call. Given the request's `service`, its lines
   * carry the request's logid and trace ids, and the call continues its trace (see `trace`).
   */
  logger?: MediaLogger;
  /**
   * The trace the call continues: each attempt sends a `traceparent` naming a new child span of
   * it (with an OpenTelemetry SDK registered, a client span) and the parent's `tracestate`.
   * @default the logger's `trace` when the logger is a request's `service`; else no traceparent
   */
  trace?: TraceParentSource;
  /**
   * Sent as `x-platform-logid`, so the platform's records can be matched with the request's.
   * @default the logger's `logid` when the logger is a request's `service`
   */
  logid?: string;
  /**
   * The mini-program this call acts for: it is signed with this appid and its response is
   * verified with this appid's platform key. @default the client's `signing.appid`
   */
  appid?: string;
}

/** Operations whose body takes the client's `envId` when it has none. */
const NEEDS_ENV_ID: ReadonlySet<Operation> = new Set([
  'delete_video',
  'describe_vod_played_top_data',
  'describe_vod_played_static_data',
]);

type Obj = Record<string, unknown>;

/** What a logid sent as `x-platform-logid` may be (as the runtime accepts one). */
const SAFE_LOGID = /^[\w.:-]{1,128}$/;

/** A call ready for its attempts. */
export interface PreparedCall {
  /** The request body as JSON text, signed and sent as is by every attempt. */
  json: string;
  /** The mini-program acted for, when calls are signed or verified by appid. */
  appid: string | undefined;
  /** The trace the call continues. */
  parent: TraceParentSource | undefined;
  /** Sent as `x-platform-logid`. */
  logid: string | undefined;
}

/**
 * Checks a call before anything is sent; throws MediaValidationError for a bad request and
 * MEDIA_OPTIONS for a bad appid, trace or logid.
 * @example const { json, appid, parent, logid } = prepareCall(options, 'get_video_list', { page_size: 20, page_number: 0 }, {})
 */
export function prepareCall<O extends Operation>(
  options: ResolvedMediaOptions,
  operation: O,
  request: RequestOf<O>,
  callOptions: CallOptions,
): PreparedCall {
  let body = request as unknown as Obj;
  if (
    NEEDS_ENV_ID.has(operation) &&
    options.envId !== undefined &&
    typeof body === 'object' &&
    body !== null &&
    body.env_id === undefined
  ) {
    body = { ...body, env_id: options.envId };
  }
  const issue = validateRequest(operation, body, { now: options.clock.now() });
  if (issue !== undefined) throw new MediaValidationError(operation, issue);
  const appid = callOptions.appid ?? options.signing?.appid;
  if (appid === undefined && (options.signing !== undefined || options.platformKeys !== undefined)) {
    throw createMediaError(
      'MEDIA_OPTIONS',
      { operation },
      'appid',
      `${operation} needs the appid of the mini-program it acts for: media.forApp('wx...'), { appid } in the call's options, or signing.appid (CLOUDFN_MEDIA_APPID) for one mini-program`,
    );
  }
  if (appid !== undefined && (typeof appid !== 'string' || appid === ''))
    throw createMediaError(
      'MEDIA_OPTIONS',
      { operation },
      'appid',
      `must be a mini-program's appid, got ${JSON.stringify(appid)}`,
    );
  const json = JSON.stringify(body);
  const caller = requestContextOf(callOptions.logger ?? options.logger);
  let parent: TraceParentSource | undefined;
  try {
    parent = checkTraceOption(callOptions.trace, 'trace') ?? caller.trace;
  } catch (error) {
    throw createMediaError('MEDIA_OPTIONS', { operation }, 'trace', (error as Error).message);
  }
  const logid = callOptions.logid ?? caller.logid;
  if (logid !== undefined && (typeof logid !== 'string' || !SAFE_LOGID.test(logid)))
    throw createMediaError(
      'MEDIA_OPTIONS',
      { operation },
      'logid',
      `must be 1 to 128 letters, digits and ._:- (a request's logid), got ${JSON.stringify(logid)}`,
    );
  return { json, appid, parent, logid };
}
