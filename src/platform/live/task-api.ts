/**
 * The live-data task calls, answered as the platform answers them (直播间数据开放, 启动任务 /
 * 停止任务 / 查询任务状态): `POST /api/live_data/task/start` and `/stop` with the JSON body
 * `{ roomid, appid, msg_type }`, `GET /api/live_data/task/get` with the same as the query.
 * Every answer is `{ err_no, err_msg, logid, data }`: `data.task_id` for start, `{}` for stop,
 * `data.status` (1 no such task, 2 stopped, 3 running) for get. The access-token is not checked
 * locally (docs/decisions.md).
 */
import { generateLogid } from '../../../runtime/log/logid.js';
import { PlatformError, platformError } from '../errors.js';
import { isLiveMsgType, type LiveMsgType } from './messages.js';
import type { LiveRooms } from './rooms.js';
import { CALLER_ROOM_HEADERS } from '../sdk/live-calls.js';

/** The paths of the task calls, as the platform's host serves them. */
export const TASK_PATHS = {
  start: '/api/live_data/task/start',
  stop: '/api/live_data/task/stop',
  get: '/api/live_data/task/get',
} as const;

/** An answer: the HTTP status and the JSON envelope. */
export interface TaskAnswer {
  status: number;
  body: { err_no: number; err_msg: string; logid: string; data: Record<string, unknown> | null };
}

/** One call: the path after the host, its method, its query and its parsed JSON body. */
export interface TaskCall {
  method: string;
  path: string;
  query: URLSearchParams;
  body: unknown;
  /**
   * The live room of the function's request that made the call (its `X-Room-ID` and
   * `X-Anchor-OpenID`, forwarded locally by the SDK stand-in): a start for that room makes its
   * anchor the room's. @default none
   */
  caller?: { roomid?: string; anchorOpenid?: string };
}

/**
 * The body to send, with the room, app and type the call gave where it gave them (so the hint
 * is about the room and type that were called), else examples.
 */
function example(source: Record<string, unknown> | undefined): string {
  const given = (name: string, fallback: string): unknown => {
    const value = source?.[name];
    return (typeof value === 'string' && value.trim() !== '') || typeof value === 'number' ? value : fallback;
  };
  return JSON.stringify({
    roomid: given('roomid', '7001'),
    appid: given('appid', 'tt…'),
    msg_type: given('msg_type', 'live_comment'),
  });
}

function field(source: Record<string, unknown>, name: string): string {
  const value = source[name];
  if (typeof value === 'number' && Number.isSafeInteger(value)) return String(value);
  if (typeof value !== 'string' || value.trim() === '')
    throw platformError(
      'PLATFORM_LIVE_BAD_TASK',
      `${name} must be a non-empty string, got ${JSON.stringify(value)}`,
      example(source),
    );
  return value.trim();
}

function readArgs(call: TaskCall): { roomid: string; appid: string; msgType: LiveMsgType } {
  let source: Record<string, unknown>;
  if (call.method === 'GET') source = Object.fromEntries(call.query);
  else if (typeof call.body === 'object' && call.body !== null && !Array.isArray(call.body))
    source = call.body as Record<string, unknown>;
  else
    throw platformError(
      'PLATFORM_LIVE_BAD_TASK',
      `the body must be a JSON object, got ${JSON.stringify(call.body)}`,
      example(undefined),
    );
  const roomid = field(source, 'roomid');
  const appid = field(source, 'appid');
  const msgType = field(source, 'msg_type');
  if (!isLiveMsgType(msgType)) throw platformError('PLATFORM_LIVE_BAD_TYPE', msgType);
  return { roomid, appid, msgType };
}

/**
 * Answers one task call, or undefined when the path is none of them.
 * @example answerTaskCall(rooms, { method: 'POST', path: '/api/live_data/task/start', query, body })
 */
export function answerTaskCall(rooms: LiveRooms, call: TaskCall): TaskAnswer | undefined {
  const which = (Object.keys(TASK_PATHS) as (keyof typeof TASK_PATHS)[]).find((k) => TASK_PATHS[k] === call.path);
  if (which === undefined) return undefined;
  const logid = generateLogid();
  try {
    const expected = which === 'get' ? 'GET' : 'POST';
    if (call.method !== expected && !(which === 'get' && call.method === 'POST'))
      throw platformError(
        'PLATFORM_LIVE_BAD_TASK',
        `${call.path} takes ${expected}, got ${call.method}`,
        example(call.method === 'GET' ? Object.fromEntries(call.query) : (call.body as Record<string, unknown>)),
      );
    const { roomid, appid, msgType } = readArgs(call);
    let data: Record<string, unknown>;
    if (which === 'start') {
      data = { task_id: rooms.start(roomid, appid, msgType).taskId };
      const caller = call.caller;
      if (caller?.roomid === roomid && caller.anchorOpenid !== undefined)
        rooms.claim(roomid, caller.anchorOpenid, 'start_game');
    } else if (which === 'stop') {
      rooms.stop(roomid, msgType);
      data = {};
    } else data = { status: rooms.status(roomid, msgType) };
    return { status: 200, body: { err_no: 0, err_msg: 'success', logid, data } };
  } catch (error) {
    if (!(error instanceof PlatformError)) throw error;
    return { status: error.status, body: { err_no: error.errNo, err_msg: error.message, logid, data: null } };
  }
}

/**
 * The caller's room from a request's headers, as `TaskCall.caller` takes it.
 * @example callerRoom({ 'x-room-id': '7001', 'x-anchor-openid': 'anchor-a' }) // { roomid: '7001', anchorOpenid: 'anchor-a' }
 */
export function callerRoom(headers: Readonly<Record<string, string | string[] | undefined>>): TaskCall['caller'] {
  const read = (name: string): string | undefined => {
    const raw = headers[name];
    const value = (Array.isArray(raw) ? raw[0] : raw)?.trim();
    return value === undefined || value === '' ? undefined : value;
  };
  const roomid = read(CALLER_ROOM_HEADERS.roomid);
  const anchorOpenid = read(CALLER_ROOM_HEADERS.anchorOpenid);
  return {
    ...(roomid === undefined ? {} : { roomid }),
    ...(anchorOpenid === undefined ? {} : { anchorOpenid }),
  };
}
