/**
 * The platform's WebSocket gateway under `cloudfn start`, as a server extension: with
 * `gateway: true` in cloudfn.config (or `CLOUDFN_GATEWAY=1`) clients upgrade at
 * `/__dycloud__/ws/connect/`, each connect, uplink and disconnect reaches the function through
 * the server's own pipeline (the gateway core and socket side of src/platform/gateway, as under
 * `cloudfn dev`), and the functions' own calls to the push hosts are answered by it through the
 * process's host table. Sessions live in the directory pickDirectory chooses (one process, the
 * workers' primary, or a fleet). The client's `X-TT-*` and room headers count only with
 * `trustGatewayHeaders`. A stop closes the sockets with 1001 after the calls in flight. With
 * the gateway off, a push or an upgrade is answered PLATFORM_WS_GATEWAY_OFF, naming the key.
 */
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { App } from '../../runtime/app.js';
import { RUNTIME_FUNCTION } from '../../runtime/log/record.js';
import { markSocketTrigger } from '../../runtime/request/socket-trigger.js';
import type { Extension, RouteHandler } from '../../runtime/serve/extension.js';
import { sendJson } from '../../runtime/serve/hook-io.js';
import { injectAgent } from '../../runtime/serve/inject.js';
import { pickDirectory } from '../fleet/ws/pick-directory.js';
import type { DirectoryFactory } from '../fleet/ws/session-directory.js';
import { resolveDevUser } from '../platform/gateway/dev-user.js';
import { failure, failureText } from '../platform/gateway/envelope.js';
import { Gateway, injectCaller, safeDecode } from '../platform/gateway/gateway.js';
import { type GatewaySettings, gatewayEnabled, readGatewayOptions } from '../platform/gateway/gateway-options.js';
import { CLOSE_CODES, CONNECT_PATH, MAX_QUEUED_VAR } from '../platform/gateway/names.js';
import { pushRoute } from '../platform/gateway/push-route.js';
import { GatewaySocketServer } from '../platform/gateway/ws-server.js';
import { PlatformError, platformError } from '../platform/errors.js';
import { CloudfnError } from '../../runtime/errors.js';

/** Options of `startGateway`. */
export interface StartGatewayOptions {
  env: NodeJS.ProcessEnv;
  /** The project's cloudfn.config, for `gateway` and `devUser.appid`. */
  config: Readonly<Record<string, unknown>>;
  /** This process is a worker of `cloudfn start --workers`, whose primary is the sessions' hub. @default false */
  workerOfPrimary?: boolean;
  /** Where sessions live. @default pickDirectory(env, { workerOfPrimary }) */
  directory?: DirectoryFactory;
}

/** The gateway's extension under start, and its gateway once the server exists. */
export interface StartGatewayExtension extends Extension {
  gateway(): Gateway | undefined;
}

/** The path of an upgrade, without its query. */
function pathOf(req: IncomingMessage): string {
  return (req.url ?? '/').split('?')[0] ?? '/';
}

/** Answers an upgrade with a JSON envelope and closes the socket. */
function refuseUpgrade(socket: Duplex, status: number, errNo: number, message: string): void {
  const body = failureText(errNo, message);
  socket.end(
    `HTTP/1.1 ${status} ${status === 404 ? 'Not Found' : 'Service Unavailable'}\r\ncontent-type: application/json\r\n` +
      `content-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
  );
}

/** With the gateway off: every push and upgrade at the connect path is refused, naming the key. */
function gatewayOff(): StartGatewayExtension {
  const refusePush: RouteHandler = (req, res, path) => {
    const error = platformError('PLATFORM_WS_GATEWAY_OFF', `${req.method ?? 'GET'} ${path.split('?')[0]}`);
    sendJson(res, error.status, failure(error.errNo, error.message));
  };
  let stop: (() => void) | undefined;
  return {
    name: 'gateway',
    gateway: () => undefined,
    hosts: () => ({ 'ws-push': refusePush }),
    upgrade(server) {
      const onUpgrade = (req: IncomingMessage, socket: Duplex): void => {
        // Another listener's upgrade (none today) is left to it.
        if (`${pathOf(req).replace(/\/+$/, '')}/` !== CONNECT_PATH) return;
        const error = platformError('PLATFORM_WS_GATEWAY_OFF', `an upgrade at ${CONNECT_PATH}`);
        refuseUpgrade(socket, error.status, error.errNo, error.message);
      };
      server.on('upgrade', onUpgrade);
      stop = () => void server.off('upgrade', onUpgrade);
    },
    close() {
      stop?.();
    },
  };
}

/**
 * The gateway's settings (CLOUDFN_WS_*, the identity); a bad one stops start-up with one line,
 * as a bad runtime option does (CLOUDFN_OPTIONS), not with the push API's error and its stack.
 */
function startSettings(env: NodeJS.ProcessEnv, config: Readonly<Record<string, unknown>>): GatewaySettings {
  try {
    return readGatewayOptions(env, resolveDevUser({ env, config }));
  } catch (error) {
    if (error instanceof PlatformError) throw new CloudfnError('CLOUDFN_OPTIONS', 500, error.message);
    throw error;
  }
}

/**
 * The gateway's extension for `cloudfn start`: on when `gateway` (or `CLOUDFN_GATEWAY`) says so.
 * A bad value of it or of a gateway setting throws CLOUDFN_OPTIONS naming it.
 * @example await startProject(root, { extensions: [startGateway({ env: process.env, config })] })
 */
export function startGateway(options: StartGatewayOptions): StartGatewayExtension {
  const { env, config } = options;
  if (!gatewayEnabled({ env, config })) return gatewayOff();
  const settings = startSettings(env, config);
  let gateway: Gateway | undefined;
  let stop: (() => Promise<void>) | undefined;
  let stopped: Promise<void> | undefined;
  const push = pushRoute(() => gateway);
  return {
    name: 'gateway',
    gateway: () => gateway,
    hosts: () => ({ 'ws-push': push }),
    upgrade(server: Server, app: App) {
      // The gateway's calls are this process's own: on marked connections their X-TT-* headers
      // stay, whatever trustGatewayHeaders says of a client's.
      const agent = injectAgent(server, 32, (end) => markSocketTrigger(end, app.options.trigger));
      const bound = new Gateway({
        call: injectCaller(server, agent),
        identity: settings.identity,
        functionOf: (path) => app.router.match(path, safeDecode(path))?.fn.name,
        directory: options.directory ?? pickDirectory(env, { workerOfPrimary: options.workerOfPrimary === true }),
      });
      gateway = bound;
      const sockets = new GatewaySocketServer({
        gateway: bound,
        defaultOpenid: '',
        trustClientHeaders: app.options.trustGatewayHeaders,
        idleTimeoutMs: settings.idleTimeoutMs,
        maxQueuedBytes: settings.maxQueuedBytes,
        requireConnId: settings.requireConnId,
        stoppingMessage: 'the server is stopping',
        onOverflow: (sessionId, queued) =>
          app.logger.line(
            'warn',
            '',
            RUNTIME_FUNCTION,
            `ws ${sessionId} closed (4009): its client read nothing of ${queued} bytes waiting, over ${MAX_QUEUED_VAR}=${settings.maxQueuedBytes}; later pushes to it fail`,
            { ws: 'overflow', sessionId },
          ),
      });
      const onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer): void => {
        if (sockets.handleUpgrade(req, socket, head)) return;
        refuseUpgrade(socket, 404, 40400, `no WebSocket endpoint at ${pathOf(req)}; connect to ${CONNECT_PATH}`);
      };
      server.on('upgrade', onUpgrade);
      stop = async () => {
        // New upgrades are refused at once; the uplinks in flight are answered (and their
        // pushes sent) before the sockets close with 1001, within the shutdown deadline.
        sockets.refuseNew();
        await bound.settled(app.options.shutdownTimeout);
        await sockets.close(CLOSE_CODES.goingAway, 'the server is stopping');
        await bound.directory.close();
        agent.destroy();
        server.off('upgrade', onUpgrade);
      };
    },
    close() {
      stopped ??= stop?.() ?? Promise.resolve();
      return stopped;
    },
  };
}
