/**
 * `openGateway`: the platform's WebSocket gateway in a test, in process. It is `serve()` with
 * the gateway's extension (its push API as the answer to the push hosts), plus simulated clients
 * without sockets (simulated-client.ts): connect, uplink and disconnect reach the function
 * through the server's own `inject`, with the gateway's headers, as under `cloudfn dev`; the
 * function's pushes to the push hosts (answered by this server while it is open: the process's
 * host table), or `gateway.pushApi`, land on these clients.
 */
import type { LogRecord } from '../../runtime/log/record.js';
import { Logger } from '../../runtime/log/logger.js';
import { createMemorySink } from '../../runtime/log/sinks.js';
import type { Extension } from '../../runtime/serve/extension.js';
import { injectAgent } from '../../runtime/serve/inject.js';
import { serve } from '../../runtime/serve/serve.js';
import type { FunctionSpec } from '../../runtime/types.js';
import { resolveDevUser } from '../platform/gateway/dev-user.js';
import {
  Gateway,
  type GatewayActivity,
  type GatewayIdentity,
  injectCaller,
  safeDecode,
} from '../platform/gateway/gateway.js';
import { CLOSE_CODES } from '../platform/gateway/names.js';
import { handlePush, type PushAnswer } from '../platform/gateway/push-api.js';
import { pushRoute } from '../platform/gateway/push-route.js';
import { type InvokeTarget, mount } from './invoke.js';
import { clientConnector, type SimulatedClient, type TestConnectOptions } from './simulated-client.js';

export {
  ConnectRefusedError,
  MAX_CLIENT_SOCKETS,
  type ReceivedMessage,
  type SimulatedClient,
  SocketLimitError,
  type TestConnectOptions,
  type TestRoom,
  type UplinkAnswer,
} from './simulated-client.js';

/** Options of `openGateway`. */
export interface GatewayTestOptions {
  /** The ids of every call. @default appid of the dev user (`tt-dev-app`), `env-dev`, `dev-service` */
  identity?: Partial<GatewayIdentity>;
  /** The user of a client that names none. @default 'dev-openid' */
  defaultOpenid?: string;
  /** Where a relative path is looked up. @default process.cwd() */
  cwd?: string;
  /** How long after `background()` a client's socket closes. @default 5000, as the platform's client */
  backgroundCloseMs?: number;
}

/** An in-process gateway. */
export interface TestGateway {
  /** Connects a client to `path` (`X-TT-SERVICE-PATH`) as `openid`; rejects with ConnectRefusedError on a non-2xx connect. */
  connect(options: TestConnectOptions): Promise<SimulatedClient>;
  /** Calls the push API as a function would (`{ path: '/ws/push_data', headers, body }`). */
  pushApi(request: { path: string; headers?: Record<string, string>; body?: string | Uint8Array }): Promise<PushAnswer>;
  /** Every push delivered, in order. */
  pushes: Extract<GatewayActivity, { type: 'push' }>[];
  /** Everything the gateway did: connects, refusals, uplinks, pushes, groups, disconnects. */
  activity: GatewayActivity[];
  /** The log records of every call. */
  logs: LogRecord[];
  /** The underlying gateway (sessions, groups). */
  gateway: Gateway;
  /** Closes every client (1001) and gives the push hosts back. */
  close(): Promise<void>;
}

/** The functions of `targets`, mounted as `invoke` mounts them, with their routes and options. */
async function mountAll(targets: InvokeTarget | readonly InvokeTarget[], cwd: string | undefined) {
  const list = Array.isArray(targets) ? (targets as readonly InvokeTarget[]) : [targets as InvokeTarget];
  const functions: FunctionSpec[] = [];
  const routes: Record<string, string> = {};
  let runtime: Awaited<ReturnType<typeof mount>>['runtime'] | undefined;
  for (const target of list) {
    const mounted = await mount(target, {}, cwd === undefined ? {} : { cwd });
    functions.push(mounted.fn);
    Object.assign(routes, mounted.routes);
    runtime ??= mounted.runtime;
  }
  return { functions, routes, runtime: runtime! };
}

/**
 * Opens a gateway in front of one function (or several), in process. While it is open, the
 * functions' pushes to the push hosts reach it (of several open at once, the newest).
 * @example
 * const gateway = await openGateway('functions/websocket_callback.ts');
 * const anchor = await gateway.connect({ path: '/websocket_callback', openid: 'anchor' });
 * await anchor.send('hello');
 * expect((await anchor.next()).json).toEqual({ echo: 'hello' });
 * await gateway.close();
 */
export async function openGateway(
  targets: InvokeTarget | readonly InvokeTarget[],
  options: GatewayTestOptions = {},
): Promise<TestGateway> {
  const { functions, routes, runtime } = await mountAll(targets, options.cwd);
  const sink = createMemorySink();
  let gateway: Gateway | undefined;
  // The gateway's extension: the push hosts are this server's while it is open.
  const extension: Extension = { name: 'gateway', hosts: () => ({ 'ws-push': pushRoute(() => gateway) }) };
  const running = await serve(functions, {
    env: {},
    routes,
    // The calls come from the gateway: its X-TT-* headers are trusted, as behind the platform's.
    // Nothing of the process beyond the host table: no console capture, signals or fleet hook;
    // no metrics, as `invoke` counts none.
    overrides: {
      ...runtime,
      ...{ trustGatewayHeaders: true, port: 0, host: '127.0.0.1', captureConsole: false, innerCallUrls: {} },
      metrics: false,
    },
    ...{
      logger: new Logger(sink),
      extensions: [extension],
      handleSignals: false,
      keepServing: false,
      startLine: false,
    },
  });
  const agent = injectAgent(running.server);
  const bound = (gateway = new Gateway({
    call: injectCaller(running.server, agent),
    identity: { appid: resolveDevUser({}).appid, envId: 'env-dev', serviceId: 'dev-service', ...options.identity },
    functionOf: (path) => running.app.router.match(path, safeDecode(path))?.fn.name,
  }));
  const activity: GatewayActivity[] = [];
  const pushes: TestGateway['pushes'] = [];
  bound.observe((entry) => {
    activity.push(entry);
    if (entry.type === 'push') pushes.push(entry);
  });
  return {
    connect: clientConnector(bound, options),
    pushApi: ({ path, headers = {}, body = '' }) => {
      const lower = Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));
      const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : Buffer.from(body);
      return handlePush(bound, { method: 'POST', path, headers: lower, body: bytes });
    },
    ...{ pushes, activity, logs: sink.records, gateway: bound },
    close: async () => {
      await bound.close(CLOSE_CODES.goingAway, 'the test gateway closed');
      agent.destroy();
      await running.close();
    },
  };
}
