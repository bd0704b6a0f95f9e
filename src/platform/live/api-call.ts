/**
 * The platform's live-room interfaces the simulator answers (the live-data task calls and the
 * token trade `webcastmate/info`), from one request to one answer as text, so the dev server's
 * routes and `cloudfn/testing`'s in-process simulator (`memory:<id>`, reached by the SDK
 * stand-in's `openApiInvoke` through `CLOUDFN_LIVE_URL`) answer alike. The in-process table is
 * process-wide under `Symbol.for`, as a second copy of cloudfn (the stand-in from dist/) must
 * find the same one.
 */
import type { LiveRooms } from './rooms.js';
import { answerTaskCall, callerRoom } from './task-api.js';
import { INFO_PATH, type LiveTokens } from './tokens.js';

/** One call: the path after the host (no query), its query, headers (lower case) and parsed body. */
export interface LiveApiCall {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: Readonly<Record<string, string | string[] | undefined>>;
  body: unknown;
}

/** The answer: status, JSON text and logid. */
export interface LiveApiAnswer {
  status: number;
  text: string;
  logid: string;
}

/**
 * Answers a task call or a token trade; undefined for any other path.
 * @example answerLiveApi({ rooms, tokens }, { method: 'POST', path: '/api/live_data/task/start', query, headers, body })
 */
export function answerLiveApi(
  ctx: { rooms: LiveRooms; tokens: LiveTokens },
  call: LiveApiCall,
): LiveApiAnswer | undefined {
  if (call.path.replace(/\/+$/, '') === INFO_PATH) return ctx.tokens.answer(call);
  const answer = answerTaskCall(ctx.rooms, { ...call, caller: callerRoom(call.headers) });
  if (answer === undefined) return undefined;
  return { status: answer.status, text: JSON.stringify(answer.body), logid: answer.body.logid };
}

type MemoryHandler = (call: LiveApiCall) => LiveApiAnswer | undefined;
const REGISTRY = Symbol.for('cloudfn.live.memory');

function registry(): Map<string, MemoryHandler> {
  const holder = globalThis as { [REGISTRY]?: Map<string, MemoryHandler> };
  return (holder[REGISTRY] ??= new Map());
}

/**
 * Makes a simulator reachable as `memory:<id>`; returns how to remove it.
 * @example const remove = registerMemoryLive('t1', (call) => answerLiveApi(ctx, call))
 */
export function registerMemoryLive(id: string, handler: MemoryHandler): () => void {
  registry().set(id, handler);
  return () => void registry().delete(id);
}

/** The in-process simulator `base` (`memory:<id>`) names, or undefined when it is closed. */
export function memoryLive(base: string): MemoryHandler | undefined {
  return registry().get(base.slice('memory:'.length));
}
