/**
 * The live-room calls the SDK stand-in sends to a local simulator, in one place for both sides:
 * the token trade's path (`/api/webcastmate/info`), the headers that carry the calling
 * function's room (cloudfn's own: the dev server fills the gateway's `X-Room-ID` on every request
 * that lacks it, so those could not tell a room's own call from the console's), and the shape of
 * a call and its answer. The simulator (src/platform/live) imports these; the stand-in never
 * imports the simulator.
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
