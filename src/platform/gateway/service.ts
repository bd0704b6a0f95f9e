/**
 * The platform's WebSocket gateway as a local service of `cloudfn dev` (its extension):
 * connections upgrade on the dev server's own port at `/__dycloud__/ws/connect/`, each call
 * reaches the function through the server's pipeline in memory (runtime/serve/inject.ts), the
 * push API answers under `${CLOUDFN_PREFIX}/ws-push/` and for its hosts (`ws-push.dyc.ivolces.com`,
 * which a plain fetch reaches through the intranet hook and the stand-in's `openApiInvoke` in
 * process, runtime/intranet/host-table.ts), requests
 * without identity headers get the dev user's (dev-user.ts), the console sees every step and
 * lists the connections, a rebuilt function's connections close with 1012 and a stopping
 * server's with 1001 (docs/gateway.md).
 */
import { failureText } from './envelope.js';
import { SERVICE_CONFIG_KEYS } from '../../config/config-keys.js';
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Logger } from '../../../runtime/log/logger.js';
import { RUNTIME_FUNCTION } from '../../../runtime/log/record.js';
import { callerHeaders } from '../../../runtime/request/caller.js';
import { injectAgent } from '../../../runtime/serve/inject.js';
import type { DevUser } from '../../../runtime/shapes.js';
import type { ServiceContext, ServiceEvents, ServiceExtension, ServiceFunction } from '../../local-service.js';
import { devUserHeaders } from './dev-user.js';
import { Gateway, injectCaller, safeDecode } from './gateway.js';
import { readGatewayOptions } from './gateway-options.js';
import { CLOSE_CODES, MAX_QUEUED_VAR, ROOM_HEADERS } from './names.js';
import type { ConnectionsAnswer, GatewayActivity } from './protocol.js';
import { pushRoute } from './push-route.js';
import { GatewaySocketServer } from './ws-server.js';

/** What the gateway reads of `startDevServer`'s options. */
export interface GatewaySettings {
  /** Close a WebSocket connection after this many ms without a message (0: never). @default CLOUDFN_WS_IDLE_TIMEOUT, else 600000 */
  wsIdleTimeoutMs?: number;
}

/** The gateway's extension, and the gateway once the server exists. */
export interface GatewayExtension extends ServiceExtension {
  gateway(): Gateway | undefined;
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

/** Closes the connections of the functions whose version changed (or which went away). */
function closeReloaded(gateway: Gateway, versions: Map<string, number>, functions: readonly ServiceFunction[]): void {
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
}

/**
 * The gateway's extension for one dev server.
 * @example const extensions = [gatewayService(context)]; await serve(functions, { extensions })
 */
export function gatewayService(context: ServiceContext): GatewayExtension {
  const { devUser } = context;
  const logger: Logger = context.logger;
  const settings = readGatewayOptions(process.env, devUser);
  let gateway: Gateway | undefined;
  let stop: (() => Promise<void>) | undefined;
  const versions = new Map<string, number>();
  let latest: readonly ServiceFunction[] = [];
  const push = pushRoute(() => gateway);
  context.onFunctions((functions) => {
    latest = functions;
    if (gateway !== undefined) closeReloaded(gateway, versions, functions);
  });
  return {
    name: 'gateway',
    configKeys: SERVICE_CONFIG_KEYS.gateway,
    gateway: () => gateway,
    routes: () => ({ 'ws-push': push }),
    hosts: () => ({ 'ws-push': push }),
    onRequest: devUserHeaders(devUser),
    upgrade(server: Server, app) {
      const agent = injectAgent(server);
      const bound = new Gateway({
        call: injectCaller(server, agent),
        identity: settings.identity,
        functionOf: (path) => app.router.match(path, safeDecode(path))?.fn.name,
      });
      gateway = bound;
      const sockets = new GatewaySocketServer({
        gateway: bound,
        defaultOpenid: devUser.openid,
        ...devRoom(devUser),
        idleTimeoutMs: (context.settings as GatewaySettings).wsIdleTimeoutMs ?? settings.idleTimeoutMs,
        maxQueuedBytes: settings.maxQueuedBytes,
        requireConnId: settings.requireConnId,
        // The live rooms learn a room's anchor from the room its anchor's client sent.
        onRoom: (room) => context.publish('ws-room', room satisfies ServiceEvents['ws-room']),
        onOverflow: (sessionId, queued) =>
          logger.line(
            'warn',
            '',
            RUNTIME_FUNCTION,
            `ws ${sessionId} closed (4009): its client read nothing of ${queued} bytes waiting, over ${MAX_QUEUED_VAR}=${settings.maxQueuedBytes}; later pushes to it fail`,
            { ws: 'overflow', sessionId },
          ),
      });
      bound.observe((activity) => {
        context.publish('ws', forConsole(activity));
        const line = describe(activity);
        if (line !== undefined) logger.line('info', '', RUNTIME_FUNCTION, line, { ws: activity.type });
      });
      const onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer): void => {
        if (sockets.handleUpgrade(req, socket, head)) return;
        const body = failureText(40400, `no WebSocket endpoint at ${req.url}; connect to /__dycloud__/ws/connect/`);
        socket.end(
          `HTTP/1.1 404 Not Found\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
        );
      };
      server.on('upgrade', onUpgrade);
      closeReloaded(bound, versions, latest);
      stop = async () => {
        await sockets.close(CLOSE_CODES.goingAway, 'the dev server is stopping');
        agent.destroy();
        server.off('upgrade', onUpgrade);
      };
    },
    panel: {
      api: { connections: (): ConnectionsAnswer => ({ connections: gateway?.sessions() ?? [] }) },
    },
    async close() {
      await stop?.();
    },
  };
}
