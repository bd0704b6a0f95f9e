/**
 * The plain-data shapes the runtime hands to the outside that the dev console's page reads too
 * (src/dev/console/protocol.ts, and the page itself for the dev user): a request's summary, a
 * log record, the dev user. Types only, no Node type, so the page's browser build imports them
 * as they are.
 */

/** What an observer learns when a request ends (the dev console listens). */
export interface RequestInfo {
  logid: string;
  /** The request's trace id (`trace_id` of its log lines). */
  traceId: string;
  functionName: string;
  method: string;
  url: string;
  status: number;
  durationMs: number;
  trigger: string;
}

/** The five methods of the service, plus `log`; kept in each line as `level` for filtering. */
export type LogLevel = 'log' | 'debug' | 'info' | 'warn' | 'error';

/** One structured log line. */
export interface LogRecord {
  level: LogLevel;
  logid: string;
  /** The request's trace id, on the lines of a request. */
  trace_id?: string;
  /** The request's span id, on the lines of a request. */
  span_id?: string;
  function: string;
  time: number;
  msg?: string;
  [field: string]: unknown;
}

/** The caller as the platform's gateway sends it in headers (docs/platform-projects.md). */
export interface DevUser {
  /** `X-TT-OPENID`. @default 'dev-openid' */
  openid: string;
  /** `X-TT-APPID`; the emulator's dev app (`cloudfn dev --platform`), so both name one app. @default 'tt-dev-app' */
  appid: string;
  /** `X-TT-UNIONID`. @default 'dev-unionid' */
  unionid: string;
  /** `X-TT-ENV`. @default 'development' */
  env: string;
  /** `X-TT-SOURCE`. @default 'miniapp' */
  source: string;
  /** `X-Forwarded-For`. @default '127.0.0.1' */
  ip: string;
  /** `X-Room-ID`: calls come from this live room. @default undefined (no room) */
  roomid?: string;
  /** `X-Anchor-OpenID`: the live room's anchor. @default undefined */
  anchorOpenid?: string;
  /** `X-Avatar-Url`: the anchor's avatar. @default undefined */
  avatarUrl?: string;
  /** `X-Nick-Name`, sent percent-encoded: the anchor's nickname, any text. @default undefined */
  nickname?: string;
}
