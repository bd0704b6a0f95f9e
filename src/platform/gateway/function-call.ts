/**
 * How the local gateway calls a function, as the platform's gateway does: connect and
 * disconnect as GETs, each client message as a POST, with the common headers (`X-TT-*`, the
 * live room's) and a logid per call. The caller that sends a call is given: the dev server's
 * and the testing gateway's write it to the app's server in memory (`injectCaller`).
 */
import type { Agent, IncomingHttpHeaders, Server } from 'node:http';
import { generateLogid } from '../../../runtime/log/logid.js';
import { inject } from '../../../runtime/serve/inject.js';
import { CALL_HEADERS, type GatewayEvent } from './names.js';
import type { SessionInfo } from './protocol.js';

/** A request the gateway sends to a function. */
export interface AppCall {
  method: 'GET' | 'POST';
  /** The path with its query string, e.g. `/websocket_callback`. */
  path: string;
  headers: Record<string, string>;
  body?: Buffer;
}

/** What the function answered. */
export interface AppAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** Sends calls to the functions; the dev server's and the testing gateway's both are one of these. */
export type AppCaller = (call: AppCall) => Promise<AppAnswer>;

/** The ids the gateway sends on every call (`X-TT-APPID`, `X-TT-ENVID`, `X-TT-SERVICEID`). */
export interface GatewayIdentity {
  appid: string;
  envId: string;
  serviceId: string;
}

/**
 * A caller writing each call to `server` (an http server of the app, listening or not) through
 * the runtime's one in-memory request, on `agent`'s pooled connections (`injectAgent`).
 * @example const call = injectCaller(server, injectAgent(server)); await call({ method: 'GET', path: '/ws', headers })
 */
export function injectCaller(server: Server, agent: Agent): AppCaller {
  return async (call) => {
    const answer = await inject(server, {
      method: call.method,
      path: call.path,
      headers: { host: 'cloudfn.gateway', ...call.headers },
      ...(call.body === undefined ? {} : { body: call.body }),
      agent,
    });
    return { status: answer.status, headers: answer.headers, body: answer.body };
  };
}

/**
 * Calls the function of a session for `event` (a POST of `body` for an uplink, else a GET);
 * a failed call answers 502 with its error's message.
 * @example const { answer, logid } = await callFunction(call, identity, info, 'connect')
 */
export async function callFunction(
  call: AppCaller,
  identity: GatewayIdentity,
  info: SessionInfo,
  event: GatewayEvent,
  body?: { data: Buffer; binary: boolean },
): Promise<{ answer: AppAnswer; logid: string }> {
  const logid = generateLogid();
  const headers: Record<string, string> = {
    ...info.room,
    [CALL_HEADERS.eventType]: event,
    [CALL_HEADERS.appid]: identity.appid,
    [CALL_HEADERS.envId]: identity.envId,
    [CALL_HEADERS.serviceId]: identity.serviceId,
    [CALL_HEADERS.sessionId]: info.sessionId,
    [CALL_HEADERS.forwardedFor]: info.ip,
    [CALL_HEADERS.logid]: logid,
  };
  // No user is claimed for a client nobody vouched for (cloudfn start without trustGatewayHeaders).
  if (info.openid !== '') headers[CALL_HEADERS.openid] = info.openid;
  if (body !== undefined)
    headers['content-type'] = body.binary ? 'application/octet-stream' : 'text/plain; charset=utf-8';
  try {
    const answer = await call({
      method: body === undefined ? 'GET' : 'POST',
      path: info.path,
      headers,
      ...(body === undefined ? {} : { body: body.data }),
    });
    return { answer, logid };
  } catch (error) {
    // The pipeline answers every request; a failure here is the in-memory connection's.
    const message = error instanceof Error ? error.message : String(error);
    return { answer: { status: 502, headers: {}, body: Buffer.from(message) }, logid };
  }
}
