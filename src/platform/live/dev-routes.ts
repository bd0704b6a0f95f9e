/**
 * The live-room simulator over HTTP, on the dev server under `${CLOUDFN_PREFIX}/live/`:
 *
 * | call | answer |
 * |---|---|
 * | `POST ${CLOUDFN_PREFIX}/live/api/live_data/task/start` (and `stop`, `GET …/get`) | the platform's task calls (task-api.ts); `openApiInvoke` of `webcast.bytedance.com` comes here |
 * | `POST ${CLOUDFN_PREFIX}/live/<roomid>/<msg_type>` with a JSON object or array of partial messages | one push to `liveData.path`; `{ roomid, msg_type, messages, status, logid, body }`, the function's answer inside |
 * | the same with `?rate=N&count=M` (`&wait=1` to answer at the end) | scripted traffic: 202 and the totals (200 at the end with `wait`) |
 * | `DELETE ${CLOUDFN_PREFIX}/live/traffic` | stops every run; their totals |
 * | `POST ${CLOUDFN_PREFIX}/live/<roomid>/token` `{ anchor_openid?, nick_name?, avatar_url? }` | `{ token, room_id, anchor_open_id, nick_name, avatar_url, expires_at }` (tokens.ts) |
 * | `POST ${CLOUDFN_PREFIX}/live/api/webcastmate/info` | the platform's trade of a token for its room; `openApiInvoke` of both webcast hosts comes here |
 * | `GET ${CLOUDFN_PREFIX}/live/rooms` | `{ anchor, path, tasks, rooms, traffic }` for the console (`rooms`: each room's anchor and tasks) |
 *
 * A push to a room with no started task of its type is refused 409 (`PLATFORM_LIVE_NO_TASK`),
 * and nothing reaches the function, as on the platform.
 */
import { CLOUDFN_PREFIX } from '../../../runtime/options.js';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { generateLogid } from '../../../runtime/log/logid.js';
import { errorBody } from '../../../runtime/request/error-body.js';
import type { RouteHandler } from '../../../runtime/serve/extension.js';
import { readBodyUpTo, sendJson, sendJsonText } from '../../../runtime/serve/hook-io.js';
import { PlatformError, platformError } from '../errors.js';
import type { LiveDataConfig } from './config.js';
import { isLiveMsgType } from './messages.js';
import type { LiveRooms } from './rooms.js';
import { answerLiveApi } from './api-call.js';
import { INFO_PATH } from '../sdk/live-calls.js';
import { LiveTokens } from './tokens.js';
import { startTraffic, type TrafficRun } from './traffic.js';
import type { LivePushAnswer, LiveRoomsAnswer } from './protocol.js';

/** Where the simulator lives on the dev server. */
export const LIVE_PREFIX = `${CLOUDFN_PREFIX}/live`;

/** The most a request body to the simulator may hold. */
const MAX_BODY = 1024 * 1024;

function sendFailure(res: ServerResponse, error: unknown): void {
  const failure =
    error instanceof PlatformError
      ? error
      : platformError('PLATFORM_LIVE_BAD_TRAFFIC', error instanceof Error ? error.message : String(error));
  sendJsonText(res, failure.status, errorBody(failure.code, failure.message, generateLogid()));
}

/** The body as JSON, undefined when empty; refused over `MAX_BODY` bytes or when it is not JSON. */
async function readJson(req: IncomingMessage): Promise<unknown> {
  const body = await readBodyUpTo(req, MAX_BODY);
  if (body === undefined)
    throw platformError('PLATFORM_LIVE_BAD_TRAFFIC', `the body is over ${MAX_BODY} bytes; send fewer messages at once`);
  const text = body.toString('utf8').trim();
  if (text === '') return undefined;
  try {
    return JSON.parse(text);
  } catch (error) {
    throw platformError('PLATFORM_LIVE_BAD_MESSAGE', 'body', 0, `is not JSON (${(error as Error).message})`);
  }
}

/** What the hook reads. */
export interface LiveRoutesContext {
  rooms: LiveRooms;
  config: () => LiveDataConfig | undefined;
  /** The room tokens. @default a table of this hook's own */
  tokens?: LiveTokens;
}

/**
 * The simulator's route (`live` under the dev server's prefix) and its hosts' (the webcast
 * hosts): `path` is what follows the prefix, or the whole URL of a request to a webcast host.
 * @example const route = liveRoute({ rooms, config }); extension.routes = () => ({ live: route })
 */
export function liveRoute(ctx: LiveRoutesContext): RouteHandler {
  const runs = new Set<TrafficRun>();
  const tokens = ctx.tokens ?? new LiveTokens();
  return (req: IncomingMessage, res: ServerResponse, rest: string) => {
    const parsed = new URL(rest === '' || rest.startsWith('?') ? `/${rest}` : rest, 'http://live.local');
    const path = parsed.pathname === '/' && !rest.startsWith('/') ? '' : parsed.pathname;
    const method = req.method ?? 'GET';
    void handle({ ...ctx, tokens }, runs, req, res, method, path, parsed.searchParams).catch((error: unknown) =>
      sendFailure(res, error),
    );
  };
}

async function handle(
  ctx: LiveRoutesContext & { tokens: LiveTokens },
  runs: Set<TrafficRun>,
  req: IncomingMessage,
  res: ServerResponse,
  method: string,
  path: string,
  query: URLSearchParams,
): Promise<void> {
  if (path.startsWith('/api/')) {
    // The token trade reads a bad body as no token (the platform's answer), the task calls refuse it.
    const read = method === 'GET' ? Promise.resolve(undefined) : readJson(req);
    const body = path === INFO_PATH ? await read.catch(() => undefined) : await read;
    const answer = answerLiveApi(ctx, { method, path, query, headers: req.headers, body });
    if (answer === undefined) throw platformError('PLATFORM_LIVE_NOT_FOUND', method, LIVE_PREFIX + path);
    res.writeHead(answer.status, {
      'content-type': 'application/json; charset=utf-8',
      'content-length': Buffer.byteLength(answer.text),
      'cache-control': 'no-store',
      'x-tt-logid': answer.logid,
    });
    return void res.end(answer.text);
  }
  if (path === '/rooms' && method === 'GET') {
    return sendJson(res, 200, {
      anchor: ctx.rooms.anchor(),
      path: ctx.config()?.path ?? null,
      tasks: ctx.rooms.tasks(),
      rooms: ctx.rooms.rooms(),
      traffic: [...runs].map((run) => run.totals()),
    } satisfies LiveRoomsAnswer);
  }
  if (path === '/traffic' && method === 'DELETE') {
    const stopped = [...runs];
    for (const run of stopped) run.stop();
    return sendJson(res, 200, { stopped: await Promise.all(stopped.map((run) => run.done)) });
  }
  const parts = path.split('/').filter((p) => p !== '');
  if (parts.length !== 2 || method !== 'POST')
    throw platformError('PLATFORM_LIVE_NOT_FOUND', method, LIVE_PREFIX + path);
  const roomid = decodeURIComponent(parts[0]!);
  const msgType = decodeURIComponent(parts[1]!);
  if (msgType === 'token') return sendJson(res, 200, mintToken(ctx, roomid, await readJson(req)));
  if (!isLiveMsgType(msgType)) throw platformError('PLATFORM_LIVE_BAD_TYPE', msgType);
  const body = await readJson(req);
  if (query.has('rate') || query.has('count')) {
    const run = startTraffic(ctx.rooms, {
      roomid,
      msgType,
      rate: query.get('rate') ?? '10',
      count: query.get('count') ?? '100',
      template: body,
    });
    runs.add(run);
    void run.done.then(() => runs.delete(run));
    if (query.get('wait') === '1') return sendJson(res, 200, await run.done);
    return sendJson(res, 202, run.totals());
  }
  const result = await ctx.rooms.send(roomid, msgType, body);
  return sendJson(res, 200, {
    roomid,
    msg_type: msgType,
    messages: result.messages,
    status: result.status,
    logid: result.logid,
    body: result.body,
  } satisfies LivePushAnswer);
}

/** A token for a room: its anchor (as pushes name it), nickname and avatar, unless given. */
function mintToken(ctx: LiveRoutesContext & { tokens: LiveTokens }, roomid: string, body: unknown): object {
  if (!/^[1-9]\d{0,18}$/.test(roomid))
    throw platformError(
      'PLATFORM_LIVE_BAD_TOKEN',
      `the room id must be a number of 1 to 19 digits, got ${JSON.stringify(roomid)}`,
    );
  if (body !== undefined && (typeof body !== 'object' || body === null || Array.isArray(body)))
    throw platformError('PLATFORM_LIVE_BAD_TOKEN', `the body must be a JSON object, got ${JSON.stringify(body)}`);
  const given = (body ?? {}) as Record<string, unknown>;
  const text = (name: string): string | undefined => {
    const value = given[name];
    if (value === undefined) return undefined;
    if (typeof value !== 'string' || value === '')
      throw platformError(
        'PLATFORM_LIVE_BAD_TOKEN',
        `${name} must be a non-empty string, got ${JSON.stringify(value)}`,
      );
    return value;
  };
  const anchor = text('anchor_openid') ?? ctx.rooms.anchor(roomid);
  const info = {
    roomid,
    anchorOpenid: anchor,
    nickName: text('nick_name') ?? anchor,
    avatarUrl: text('avatar_url') ?? `https://p3-webcast.douyinpic.com/img/webcast/${encodeURIComponent(anchor)}.png`,
  };
  const { token, expiresAt } = ctx.tokens.mint(info);
  return {
    token,
    room_id: roomid,
    anchor_open_id: info.anchorOpenid,
    nick_name: info.nickName,
    avatar_url: info.avatarUrl,
    expires_at: expiresAt,
  };
}
