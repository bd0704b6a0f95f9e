/**
 * The platform's WebSocket gateway, locally: the connections and their calls (`Gateway`), the
 * socket side (`GatewaySocketServer`), the push API (`handlePush`) and its routing, and the names
 * of every header, path and close code. docs/gateway.md explains the flow.
 */
export { Gateway, injectCaller, safeDecode } from './gateway.js';
export type {
  AppAnswer,
  AppCall,
  AppCaller,
  ClientLink,
  GatewayActivity,
  GatewayIdentity,
  GatewayOptions,
  OpenRequest,
  OpenResult,
  PushVia,
  SessionInfo,
} from './gateway.js';
export { handlePush, parseIdList, type PushAnswer, type PushRequest } from './push-api.js';
export { isPushUrl, registerMemoryPush, sendPush } from './push-route.js';
export { GatewaySocketServer, type GatewaySocketOptions } from './ws-server.js';
export { readGatewayOptions, DEFAULT_IDLE_TIMEOUT_MS, type GatewaySettings } from './gateway-options.js';
export {
  CALL_HEADERS,
  CLIENT_HEADERS,
  CLIENT_QUERY,
  CLOSE_CODES,
  CONNECT_PATH,
  MAX_PUSH_IDS,
  PUSH_HEADERS,
  PUSH_HOSTS,
  PUSH_MOUNT,
  PUSH_PATHS,
  PUSH_URL_VAR,
  IDLE_TIMEOUT_VAR,
  type GatewayEvent,
} from './names.js';
