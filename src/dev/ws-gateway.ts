/**
 * The platform's WebSocket gateway inside `cloudfn dev`: connections upgrade on the dev
 * server's own port at `/__dycloud__/ws/connect/`, the function is called through the server's
 * real pipeline, the push API answers under `/_cloudfn/ws-push/` (and `CLOUDFN_WS_PUSH_URL`
 * points there), the console sees every step, a rebuilt function's connections close with 1012
 * and a stopping server's with 1001 (docs/gateway.md).
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { App } from '../../runtime/app.js';
import type { Logger } from '../../runtime/log/logger.js';
import { RUNTIME_FUNCTION } from '../../runtime/log/record.js';
import type { DevUser } from '../../runtime/options.js';
import { callerHeaders } from '../../runtime/request/caller.js';
import type { BeforeHook } from '../../runtime/serve/http-server.js';
import { injectAgent } from '../../runtime/serve/inject.js';
import { Gateway, injectCaller, safeDecode, type GatewayActivity } from '../platform/gateway/gateway.js';
import { CLOSE_CODES, PUSH_MOUNT, ROOM_HEADERS } from '../platform/gateway/names.js';
import { readGatewayOptions } from '../platform/gateway/gateway-options.js';
import { handlePush } from '../platform/gateway/push-api.js';
import { GatewaySocketServer } from '../platform/gateway/ws-server.js';
import type { EventHub } from './console/event-hub.js';
import type { FunctionStatus } from './reloader.js';

/** Options of the dev server's gateway. */
export interface DevGatewayOptions {
  app: App;
  server: Server;
  logger: Logger;
  hub: EventHub;
  devUser: DevUser;
  /** Close idle connections after this many ms (0: never). @default CLOUDFN_WS_IDLE_TIMEOUT, else 600000 */
  idleTimeoutMs?: number;
}

/** The dev server's gateway. */
export interface DevGateway {
  gateway: Gateway;
  /** The push API's hook (`/_cloudfn/ws-push/...`). */
  pushHook: BeforeHook;
  /** Closes the connections of the functions whose version changed since the last call. */
  reloaded(functions: readonly FunctionStatus[]): void;
  /** Closes every connection (1001) and stops taking new ones. */
  close(): Promise<void>;
}

/** The largest push body read, as the runtime's default body limit. */
const MAX_PUSH_BODY = 10 * 1024 * 1024;

function readBody(req: IncomingMessage): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_PUSH_BODY) {
        resolve(undefined);
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function sendJson(res: ServerResponse, status: number, value: unknown): void {
  const body = JSON.stringify(value);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
  });
  res.end(body);
}

/** One terminal line per connection event; uplinks and pushes are in the request lines and the console. */
function describe(activity: GatewayActivity): string | undefined {
  switch (activity.type) {
    case 'connect':
      return `ws connect ${activity.session.sessionId} ${activity.session.path} as ${activity.session.openid}`;
    case 'refused':
      return `ws refused ${activity.path} as ${activity.openid}: connect answered ${activity.status}`;
    case 'disconnect':
      return `ws disconnect ${activity.sessionId} (close ${activity.code}${activity.reason === '' ? '' : ` ${activity.reason}`})`;
    default:
      return undefined;
  }
}

/** The console shows a preview: a frame of megabytes is not sent whole to every open page. */
const CONSOLE_DATA_LIMIT = 4096;

function forConsole(activity: GatewayActivity): GatewayActivity {
  if ((activity.type !== 'uplink' && activity.type !== 'push') || activity.data.length <= CONSOLE_DATA_LIMIT)
    return activity;
  return { ...activity, data: `${activity.data.slice(0, CONSOLE_DATA_LIMIT)}… (${activity.data.length} characters)` };
}

/** The dev user's live room as the gateway sends it, when it stands in one. */
function devRoom(user: DevUser): { defaultRoom?: Record<string, string> } {
  const headers = callerHeaders(user);
  const room: Record<string, string> = {};
  for (const name of ROOM_HEADERS) if (headers[name] !== undefined) room[name] = headers[name];
  return Object.keys(room).length === 0 ? {} : { defaultRoom: room };
}

/**
 * Starts the gateway on a dev server's http server (before it listens or after).
 * @example const ws = startDevGateway({ app, server, logger, hub, devUser }); createHttpServer(app, { before: [ws.pushHook] })
 */
export function startDevGateway(options: DevGatewayOptions): DevGateway {
  const { app, server, logger, hub } = options;
  const settings = readGatewayOptions(process.env, options.devUser);
  const agent = injectAgent(server);
  const gateway = new Gateway({
    call: injectCaller(server, agent),
    identity: settings.identity,
    functionOf: (path) => app.router.match(path, safeDecode(path))?.fn.name,
  });
  const sockets = new GatewaySocketServer({
    gateway,
    defaultOpenid: options.devUser.openid,
    ...devRoom(options.devUser),
    idleTimeoutMs: options.idleTimeoutMs ?? settings.idleTimeoutMs,
  });
  gateway.observe((activity) => {
    hub.publish('ws', forConsole(activity));
    const line = describe(activity);
    if (line !== undefined) logger.line('info', '', RUNTIME_FUNCTION, line, { ws: activity.type });
  });
  const onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer): void => {
    if (sockets.handleUpgrade(req, socket, head)) return;
    const body = JSON.stringify({
      data: null,
      err_msg: `no WebSocket endpoint at ${req.url}; connect to /__dycloud__/ws/connect/`,
      err_no: 40400,
    });
    socket.end(
      `HTTP/1.1 404 Not Found\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
    );
  };
  server.on('upgrade', onUpgrade);

  const versions = new Map<string, number>();
  return {
    gateway,
    pushHook: (req, res) => {
      const url = req.url ?? '/';
      if (!url.startsWith(`${PUSH_MOUNT}/`)) return false;
      void readBody(req).then(
        (body) => {
          if (body === undefined)
            return sendJson(res, 413, {
              data: null,
              err_msg: `the body is larger than ${MAX_PUSH_BODY} bytes; send less`,
              err_no: 41300,
            });
          const answer = handlePush(gateway, {
            method: req.method ?? 'GET',
            path: url.slice(PUSH_MOUNT.length),
            headers: req.headers,
            body,
          });
          sendJson(res, answer.status, answer.body);
        },
        () => res.destroy(),
      );
      return true;
    },
    reloaded(functions) {
      const changed = new Set<string>();
      for (const fn of functions) {
        const before = versions.get(fn.name);
        if (before !== undefined && before !== fn.version) changed.add(fn.name);
        versions.set(fn.name, fn.version);
      }
      // A removed function's connections close too: their calls would now answer 404.
      const present = new Set(functions.map((fn) => fn.name));
      for (const name of versions.keys()) {
        if (present.has(name)) continue;
        changed.add(name);
        versions.delete(name);
      }
      for (const name of changed)
        void gateway.close(
          CLOSE_CODES.reloaded,
          `${name} changed: reconnect to run the new code`,
          (info) => info.functionName === name,
        );
    },
    async close() {
      await sockets.close(CLOSE_CODES.goingAway, 'the dev server is stopping');
      agent.destroy();
      server.off('upgrade', onUpgrade);
    },
  };
}
