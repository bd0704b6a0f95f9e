/**
 * Live-room tokens and their trade for the room, as the platform's `webcastmate/info` does it:
 * a game client outside the SDK holds a token; the server POSTs it (header `X-Token`, body
 * `{ token }`) to `https://webcast.bytedance.com/api/webcastmate/info` (or the intranet host
 * without an access token) and gets `{ data: { info: { room_id, anchor_open_id, avatar_url,
 * nick_name } }, err_no, err_msg }`, `room_id` written as a bare number (a 19-digit id survives
 * only for code that reads the text). Locally the simulator mints the tokens
 * (`POST ${CLOUDFN_PREFIX}/live/<roomid>/token`); one lives 30 minutes; an app may ask 10 times a second.
 * Per-instance state: a dev server has one.
 */
import { randomBytes } from 'node:crypto';
import { generateLogid } from '../../../runtime/log/logid.js';
import { CALLER_ROOM_HEADERS } from '../sdk/live-calls.js';

/** How long a token lives: 30 minutes. */
export const TOKEN_TTL_MS = 30 * 60 * 1000;

/** The most trades one app may ask for in a second. */
export const INFO_RATE_PER_SECOND = 10;

/** The `err_no` of the answers that are not success (docs/decisions.md; the pages show none). */
export const INFO_ERRORS = {
  badRequest: { errNo: 40001, message: 'the token is required: send it in X-Token (and as {"token"} in the body)' },
  badToken: { errNo: 40004, message: 'the token is unknown or expired (a token lives 30 minutes); get a new one' },
  limited: { errNo: 40100, message: 'too many requests: at most 10 a second per app' },
  method: { errNo: 40500, message: 'webcastmate/info takes POST' },
} as const;

/** Who a token stands for. */
export interface TokenInfo {
  roomid: string;
  anchorOpenid: string;
  nickName: string;
  avatarUrl: string;
}

/** One trade request: its method, headers (lower case) and parsed JSON body. */
export interface InfoRequest {
  method: string;
  headers: Readonly<Record<string, string | string[] | undefined>>;
  body: unknown;
}

/** The answer: an HTTP status and the JSON text (written by hand, for the bare room id). */
export interface InfoAnswer {
  status: number;
  text: string;
  logid: string;
  /** Who the token stood for, when the trade succeeded. */
  traded?: TokenInfo;
}

function one(headers: InfoRequest['headers'], name: string): string | undefined {
  const raw = headers[name];
  const value = (Array.isArray(raw) ? raw[0] : raw)?.trim();
  return value === undefined || value === '' ? undefined : value;
}

/** The tokens minted by one simulator, and the rate of trades per app. */
export class LiveTokens {
  readonly #tokens = new Map<string, TokenInfo & { expires: number }>();
  readonly #window = new Map<string, number[]>();
  readonly #now: () => number;

  constructor(options: { now?: () => number } = {}) {
    this.#now = options.now ?? Date.now;
  }

  /**
   * A new token for `roomid` (digits: the platform's room ids are numbers).
   * @example tokens.mint({ roomid: '7001', anchorOpenid: 'anchor-a', nickName: 'A', avatarUrl: '' })
   */
  mint(info: TokenInfo): { token: string; expiresAt: number } {
    const now = this.#now();
    // Expired tokens go when a new one is made, so the table stays the size of 30 minutes' use.
    for (const [token, held] of this.#tokens) if (held.expires <= now) this.#tokens.delete(token);
    const token = randomBytes(24).toString('base64url');
    const expiresAt = now + TOKEN_TTL_MS;
    this.#tokens.set(token, { ...info, expires: expiresAt });
    return { token, expiresAt };
  }

  /** Who a live token stands for; undefined when unknown or expired. */
  lookup(token: string): TokenInfo | undefined {
    const held = this.#tokens.get(token);
    if (held === undefined || held.expires <= this.#now()) return undefined;
    const { expires: _expires, ...info } = held;
    return info;
  }

  /** Counts one trade of `app`; false past the limit in the last second. */
  #allow(app: string): boolean {
    const now = this.#now();
    const recent = (this.#window.get(app) ?? []).filter((t) => now - t < 1000);
    const allowed = recent.length < INFO_RATE_PER_SECOND;
    if (allowed) recent.push(now);
    this.#window.set(app, recent);
    return allowed;
  }

  /**
   * Answers one `webcastmate/info` call. The app is told apart by its access-token (the SDK
   * stand-in sends the caller's appid as `x-cloudfn-appid` when it has none).
   * @example tokens.answer({ method: 'POST', headers: { 'x-token': token }, body: { token } }).text
   */
  answer(request: InfoRequest): InfoAnswer {
    const logid = generateLogid();
    const fail = (status: number, error: { errNo: number; message: string }): InfoAnswer => ({
      status,
      text: JSON.stringify({ data: null, err_no: error.errNo, err_msg: error.message, logid }),
      logid,
    });
    if (request.method.toUpperCase() !== 'POST') return fail(405, INFO_ERRORS.method);
    const app = one(request.headers, 'access-token') ?? one(request.headers, CALLER_ROOM_HEADERS.appid) ?? 'local';
    if (!this.#allow(app)) return fail(429, INFO_ERRORS.limited);
    const body = request.body as { token?: unknown } | undefined;
    const token = one(request.headers, 'x-token') ?? (typeof body?.token === 'string' ? body.token : undefined);
    if (token === undefined) return fail(400, INFO_ERRORS.badRequest);
    const info = this.lookup(token);
    if (info === undefined) return fail(200, INFO_ERRORS.badToken);
    const fields = [
      `"room_id":${info.roomid}`,
      `"anchor_open_id":${JSON.stringify(info.anchorOpenid)}`,
      `"avatar_url":${JSON.stringify(info.avatarUrl)}`,
      `"nick_name":${JSON.stringify(info.nickName)}`,
    ];
    return {
      status: 200,
      text: `{"data":{"info":{${fields.join(',')}}},"err_no":0,"err_msg":"success","logid":${JSON.stringify(logid)}}`,
      logid,
      traded: info,
    };
  }
}
