/**
 * The live-room calls the SDK stand-in sends to a local simulator, in one place for both sides:
 * the token trade's path (`/api/webcastmate/info`), the headers that carry the calling
 * function's room (cloudfn's own: the dev server fills the gateway's `X-Room-ID` on every request
 * that lacks it, so those could not tell a room's own call from the console's), and the
 * process-wide table of simulators answered in process (`CLOUDFN_LIVE_URL=memory:<id>`, under
 * `Symbol.for`, as a second copy of cloudfn must find the same one). The simulator (src/platform/live)
 * imports these; the stand-in never imports the simulator.
 */

/** The path of the token trade on both webcast hosts. */
export const INFO_PATH = '/api/webcastmate/info';

/** The headers that carry the calling function's live room (and app) to the simulator. */
export const CALLER_ROOM_HEADERS = {
  roomid: 'x-cloudfn-room-id',
  anchorOpenid: 'x-cloudfn-anchor-openid',
  /** The caller's app, which the token trade's rate is counted by when no access-token is sent. */
  appid: 'x-cloudfn-appid',
} as const;

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
