/**
 * What the WebSocket gateway shows on the dev console: its connections (`GET
 * ${CLOUDFN_PREFIX}/api/connections`) and each step it reports (the `ws` event of the console's feed).
 * Types only, with no Node types: the console page's browser build imports them too.
 */

/** A WebSocket gateway connection as the console and the query API show it. */
export interface SessionInfo {
  sessionId: string;
  openid: string;
  /** The function's path (`X-TT-SERVICE-PATH`). */
  path: string;
  /** The function that answered connect, when known. */
  functionName: string | undefined;
  /** The client's address (`X-Forwarded-For`). */
  ip: string;
  connectedAt: number;
  /** Each group as `name=value`. */
  groups: string[];
  /** The live room's headers (`X-Room-ID`, ...) sent on each call, when the client is in one. */
  room?: Readonly<Record<string, string>>;
}

/** How a push chose its connections. */
export type PushVia = 'session' | 'openid' | 'group' | 'live';

/** What the gateway reports, and the `ws` event carries: one entry per call, refusal, push and close. */
export type GatewayActivity =
  | { type: 'connect'; session: SessionInfo; status: number; logid: string }
  | { type: 'refused'; path: string; openid: string; status: number; body: string; logid: string }
  | { type: 'uplink'; sessionId: string; data: string; binary: boolean; status: number; logid: string }
  | { type: 'disconnect'; sessionId: string; code: number; reason: string; status: number; logid: string }
  | { type: 'push'; sessionId: string; data: string; binary: boolean; via: PushVia }
  | { type: 'group'; action: 'join' | 'leave'; sessionId: string; group: string };

/** `GET ${CLOUDFN_PREFIX}/api/connections`: the gateway's open connections. */
export interface ConnectionsAnswer {
  connections: SessionInfo[];
}

/** The console feed's events this extension publishes, with their data. */
export interface GatewayEvents {
  /** One step of the WebSocket gateway. */
  ws: GatewayActivity;
}
