/**
 * The names of the platform's WebSocket gateway, in one place: the connect path, the headers
 * of a connection and of each call to the function, the query parameters that stand for them
 * when a client cannot set headers, the push API's paths and headers, the push hosts, and the
 * close codes cloudfn's local gateway uses (docs/gateway.md).
 */
import { CLOUDFN_PREFIX } from '../../../runtime/options.js';

/** Where clients connect (the platform's custom-domain path; two underscores on each side). */
export const CONNECT_PATH = '/__dycloud__/ws/connect/';

/** Headers a client sends when it connects (lower case, as node gives them). */
export const CLIENT_HEADERS = {
  /** The function's path, e.g. `/websocket_callback` (required). */
  servicePath: 'x-tt-service-path',
  /** A single-use connection ID (optional locally; a second use is refused). */
  connId: 'x-tt-ws-conn-id',
  /** The user; locally only (the platform takes it from the signed-in user). Else the dev user. */
  openid: 'x-tt-openid',
} as const;

/**
 * The live room of a game client's connection, which the platform's gateway decodes from the
 * client's token and writes on each call, as on the client's HTTP calls (docs/gateway.md#the-live-room).
 * Locally a client sends them on the upgrade, else the dev user's room is sent.
 */
export const ROOM_HEADERS = ['x-room-id', 'x-anchor-openid', 'x-avatar-url', 'x-nick-name'] as const;

/**
 * The query parameters that stand for `CLIENT_HEADERS` when a client cannot set headers (a
 * browser's `WebSocket`, `tt.connectSocket`): the short name or the header's own name.
 */
export const CLIENT_QUERY: Readonly<Record<keyof typeof CLIENT_HEADERS, readonly string[]>> = {
  servicePath: ['service_path', 'x-tt-service-path'],
  connId: ['conn_id', 'x-tt-ws-conn-id'],
  openid: ['openid', 'x-tt-openid'],
};

/** The headers of every call the gateway makes to the function. */
export const CALL_HEADERS = {
  eventType: 'x-tt-event-type',
  appid: 'x-tt-appid',
  envId: 'x-tt-envid',
  serviceId: 'x-tt-serviceid',
  openid: 'x-tt-openid',
  sessionId: 'x-tt-sessionid',
  forwardedFor: 'x-forwarded-for',
  logid: 'x-tt-logid',
} as const;

/** The three events: connect and disconnect are GETs, uplink a POST with the message as body. */
export type GatewayEvent = 'connect' | 'disconnect' | 'uplink';

/** The push API's headers. */
export const PUSH_HEADERS = {
  sessionIds: 'x-tt-ws-sessionids',
  openIds: 'x-tt-ws-openids',
  groupName: 'x-tt-ws-groupname',
  groupValue: 'x-tt-ws-groupvalue',
} as const;

/** The push API's paths (on the push host, or under `PUSH_MOUNT` on the dev server). */
export const PUSH_PATHS = {
  push: '/ws/push_data',
  queryInfo: '/ws/query_info',
  groupPush: '/ws/group/push_data',
  groupJoin: '/ws/group/join',
  groupLeave: '/ws/group/leave',
  groupQueryInfo: '/ws/group/query_info',
  livePush: '/ws/live_interaction/push_data',
  getConnId: '/ws/get_conn_id',
} as const;

/** At most this many ids in `X-TT-WS-SESSIONIDS` or `X-TT-WS-OPENIDS`. */
export const MAX_PUSH_IDS = 5;

/** The hosts a function calls for the push API on the platform (runtime/intranet/hosts.ts owns them). */
export { PUSH_HOSTS } from '../../../runtime/intranet/hosts.js';

/** Where the dev server serves the push API: `http://127.0.0.1:8000${CLOUDFN_PREFIX}/ws-push/ws/push_data`. */
export const PUSH_MOUNT = `${CLOUDFN_PREFIX}/ws-push`;

/** The variable setting the most bytes one connection may have waiting to be sent. */
export const MAX_QUEUED_VAR = 'CLOUDFN_WS_MAX_QUEUED';

/** The variable that makes the gateway require a fresh id from `/ws/get_conn_id` on every upgrade. */
export const REQUIRE_CONN_ID_VAR = 'CLOUDFN_WS_REQUIRE_CONN_ID';

/** The variable setting the idle timeout in milliseconds (0: none). */
export const IDLE_TIMEOUT_VAR = 'CLOUDFN_WS_IDLE_TIMEOUT';

/** The close codes of the local gateway (docs/gateway.md#close-codes). */
export const CLOSE_CODES = {
  /** The client or the gateway closed normally. */
  normal: 1000,
  /** The dev server is stopping. */
  goingAway: 1001,
  /** The function behind the connection was rebuilt: reconnect to run the new code. */
  reloaded: 1012,
  /** Nothing was sent either way for the idle timeout. */
  idle: 4008,
  /** The client read too slowly: a push would have queued more than the bound (CLOUDFN_WS_MAX_QUEUED). */
  tooSlow: 4009,
} as const;
