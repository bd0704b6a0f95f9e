/**
 * One timer firing, as the platform's timer trigger sends it ("触发器接口开发文档"): a POST to the
 * function's own path whose JSON body is exactly the trigger's configured params (`{}` when it
 * has none), with `x-tt-logid` set to the firing's logid, and cut at a limit (60 s on the
 * platform, which then loses the answer and may stop the work). It is written through the app's
 * real pipeline on an in-memory connection marked `timer` (runtime/request/socket-trigger.ts),
 * so the handler gets `service.trigger === 'timer'` and the usual limits and request line.
 */
import type { Server } from 'node:http';
import { generateLogid } from '../../runtime/log/logid.js';
import { markSocketTrigger } from '../../runtime/request/socket-trigger.js';
import { inject } from '../../runtime/serve/inject.js';

/** How long the platform waits for a timer's answer. */
export const PLATFORM_FIRING_LIMIT_MS = 60_000;

/** The cloudfn-only headers that say which firing a request is (the platform sends neither). */
export const FIRING_HEADERS = {
  /** When the firing was due, ISO 8601 in UTC (for an on-demand firing: when it was asked). */
  scheduledTime: 'x-cloudfn-scheduled-time',
  /** `true` from `cloudfn trigger` or the console's button, `false` on schedule. */
  manual: 'x-cloudfn-manual',
} as const;

/** One firing. */
export interface TimerFiring {
  /** The JSON body: the schedule's params, sent as they are. */
  params: unknown;
  /** When it was due, ms since the epoch. */
  scheduledTime: number;
  manual: boolean;
  /** Cut the firing after this many ms. */
  limitMs: number;
}

/** What a firing answered. */
export interface FireResult {
  /** The status the function answered; 0 when the firing was cut. */
  status: number;
  /** The firing's logid (sent as `x-tt-logid`, and the request's logid). */
  logid: string;
  /** The response body as text ('' when cut). */
  body: string;
  /** True when the function had not answered within the limit. */
  cut: boolean;
}

/**
 * Sends one timer request to `name` through `server` (an http server of the app). On a cut,
 * `onCut` is told (the scheduler writes the line that says so).
 * @example await fireTimer(server, 'cleanup', { params: {}, scheduledTime: Date.now(), manual: true, limitMs: 60_000 }, 'x-platform-logid')
 */
export async function fireTimer(
  server: Server,
  name: string,
  firing: TimerFiring,
  logidHeader: string,
): Promise<FireResult> {
  const logid = generateLogid();
  const headers: Record<string, string> = {
    host: 'cloudfn.timer',
    'content-type': 'application/json',
    'user-agent': 'cloudfn-timer',
    'x-tt-logid': logid,
    [FIRING_HEADERS.scheduledTime]: new Date(firing.scheduledTime).toISOString(),
    [FIRING_HEADERS.manual]: String(firing.manual),
  };
  // The app's own logid header too, so the request adopts the firing's logid whether or not it
  // trusts the gateway's x-tt-logid (the firing comes from this process, not from a client).
  headers[logidHeader] = logid;
  const response = await inject(server, {
    method: 'POST',
    path: name === 'index' ? '/' : `/${name.split('/').map(encodeURIComponent).join('/')}`,
    headers,
    body: JSON.stringify(firing.params ?? {}),
    mark: (socket) => markSocketTrigger(socket, 'timer'),
    limitMs: firing.limitMs,
  });
  return { status: response.status, logid, body: response.body.toString('utf8'), cut: response.cut };
}
