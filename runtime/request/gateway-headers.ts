/**
 * The one list of request headers that only the platform sets: its gateway (for calls from a
 * mini-program, a live room or a WebSocket connection) and its internal lines (the live-data
 * push of a live room). A client that reaches a server directly can send any of them, so unless
 * the server is told it stands behind the gateway (`trustGatewayHeaders`), they are removed
 * before the handler runs: one rule for every kind (docs/platform-projects.md#gateway-headers).
 */
import type { IncomingHttpHeaders } from 'node:http';

/** Who sets a header, for the documentation and the tests. */
export type GatewayHeaderSource = 'identity' | 'live-room' | 'websocket' | 'live-data' | 'logid';

/**
 * Every platform-set header, lower case, with where it comes from:
 * - `identity`: the gateway on a call from a mini-program (the platform's runtime interface
 *   document, "client container calls": X-TT-OPENID and the others);
 * - `live-room`: the gateway on a call from a live room's game client, which writes the room
 *   it decoded from the client's token as X-Room-ID, X-Anchor-OpenID, X-Avatar-Url and
 *   X-Nick-Name (the platform's 弹幕玩法 on Douyin Cloud page, "免token换取直播间信息"); the
 *   server SDK's `getContext()` reads them. X-Anchor-OpenID is also the live-data line's anchor,
 *   so it is listed once, under `live-data`;
 * - `websocket`: the WebSocket gateway on the calls it makes for a connection (connect,
 *   message, disconnect), as the platform's WebSocket guide shows them;
 * - `live-data`: the platform's internal line that posts a live room's messages (comments,
 *   likes, gifts) to the function; `x-roomid` and `x-msg-type` name the room and the kind, and
 *   the cloud's line adds the anchor. The push's own `x-signature`, `x-nonce-str` and
 *   `x-timestamp` are not on this list: a receiver verifies them with its secret, so they claim
 *   nothing a forger could profit from;
 * - `logid`: the gateway's log id, which the request adopts only where the gateway is trusted.
 */
export const GATEWAY_HEADER_SOURCES: Readonly<Record<string, GatewayHeaderSource>> = Object.freeze({
  'x-tt-openid': 'identity',
  'x-tt-appid': 'identity',
  'x-tt-unionid': 'identity',
  'x-tt-anonymous-openid': 'identity',
  'x-tt-env': 'identity',
  'x-tt-source': 'identity',
  'x-room-id': 'live-room',
  'x-avatar-url': 'live-room',
  'x-nick-name': 'live-room',
  'x-tt-event-type': 'websocket',
  'x-tt-sessionid': 'websocket',
  'x-tt-envid': 'websocket',
  'x-tt-serviceid': 'websocket',
  'x-tt-ws-conn-id': 'websocket',
  'x-tt-service-path': 'websocket',
  'x-anchor-openid': 'live-data',
  'x-roomid': 'live-data',
  'x-msg-type': 'live-data',
  'x-tt-logid': 'logid',
});

/** The names of GATEWAY_HEADER_SOURCES. */
export const GATEWAY_HEADERS: readonly string[] = Object.freeze(Object.keys(GATEWAY_HEADER_SOURCES));

const NAMES: ReadonlySet<string> = new Set(GATEWAY_HEADERS);

/** 'x' and '-': every name on the list starts so; other headers are passed over on two reads. */
const X = 0x78;
const DASH = 0x2d;

/**
 * Removes every platform-set header, so a client reaching the server directly cannot claim a
 * user, a room, an anchor or a connection. Returns whether any was there.
 * @example stripGatewayHeaders(req.headers)
 */
export function stripGatewayHeaders(headers: IncomingHttpHeaders): boolean {
  let found = false;
  // One pass over the request's own headers (a handful) rather than a lookup per listed name
  // (twenty): on node's header objects of a six-header request, 19-29 ns of CPU against
  // 71-124 ns for the six lookups of the identity list alone (a miss on a dictionary-mode
  // object is the costly part), and about three times that for twenty lookups
  // (test/bench/gateway-strip.mjs).
  for (const name in headers) {
    if (name.charCodeAt(0) !== X || name.charCodeAt(1) !== DASH || !NAMES.has(name)) continue;
    delete headers[name];
    found = true;
  }
  return found;
}
