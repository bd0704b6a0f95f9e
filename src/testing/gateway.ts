/**
 * `openGateway`: the platform's WebSocket gateway in a test, in process and without sockets.
 * Simulated clients connect to a function (connect, uplink and disconnect reach it through the
 * real pipeline with the gateway's headers, as under `cloudfn dev`), and the push API is bound
 * to this gateway: the function's `openApiInvoke` of the push hosts (answered in process: the
 * push hosts are this gateway's server's while it is open), or `gateway.pushApi`, lands on
 * these clients.
 */
import { Logger } from '../../runtime/log/logger.js';
import type { LogRecord } from '../../runtime/log/record.js';
import { createMemorySink } from '../../runtime/log/sinks.js';
import { resolveDevUser } from '../platform/gateway/dev-user.js';
import { loadRoutePatterns } from '../../runtime/request/router.js';
import { serveInMemory } from '../../runtime/serve/in-memory.js';
import type { FunctionSpec } from '../../runtime/types.js';
import { injectAgent } from '../../runtime/serve/inject.js';
import {
  type AppAnswer,
  Gateway,
  injectCaller,
  safeDecode,
  type GatewayActivity,
  type GatewayIdentity,
} from '../platform/gateway/gateway.js';
import { CLOSE_CODES } from '../platform/gateway/names.js';
import { handlePush, type PushAnswer } from '../platform/gateway/push-api.js';
import { pushRoute } from '../platform/gateway/push-route.js';
import { mount, type InvokeTarget } from './invoke.js';

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

/** A live room a client is in: sent as X-Room-ID, X-Anchor-OpenID, X-Nick-Name, X-Avatar-Url on each call. */
export interface TestRoom {
  roomid: string;
  /** @default the client's openid (the anchor's own game client) */
  anchorOpenid?: string;
  nickName?: string;
  avatarUrl?: string;
}

/** What `connect` takes. */
export interface TestConnectOptions {
  /** The function's path (`X-TT-SERVICE-PATH`). */
  path: string;
  /** @default GatewayTestOptions.defaultOpenid, else 'dev-openid' */
  openid?: string;
  ip?: string;
  /** The live room the client is in. @default none */
  room?: TestRoom;
  /** The mini-program instance the socket belongs to; one holds at most 5 sockets. @default the openid */
  client?: string;
}

/** The most sockets one client holds at once (the platform's mini-program WebSocket page). */
export const MAX_CLIENT_SOCKETS = 5;

/** A sixth socket of one client, refused as the platform's client refuses it, before any call. */
export class SocketLimitError extends Error {
  override name = 'SocketLimitError';
  constructor(readonly client: string) {
    super(
      `connectSocket:fail ${client} already holds ${MAX_CLIENT_SOCKETS} sockets, the most a mini-program client may; close one first`,
    );
  }
}

/** A frame the client received. */
export interface ReceivedMessage {
  data: Buffer;
  /** The data as UTF-8 text. */
  text: string;
  /** The text parsed as JSON, or undefined. */
  json: unknown;
  binary: boolean;
}

/** What the function answered to an uplink. */
export interface UplinkAnswer {
  status: number;
  text: string;
  json: unknown;
}

/** A connected client. */
export interface SimulatedClient {
  sessionId: string;
  openid: string;
  /** Every frame pushed to this client, in order. */
  messages: ReceivedMessage[];
  /** How the connection ended, once it has. */
  closed: { code: number; reason: string } | undefined;
  /** Sends a text or binary message; resolves with the function's answer to the uplink. */
  send(data: string | Uint8Array): Promise<UplinkAnswer>;
  /** Resolves with the next frame (or the first not yet taken). @default timeoutMs 5000 */
  next(timeoutMs?: number): Promise<ReceivedMessage>;
  /** Closes from the client's side; resolves after the function's disconnect call. */
  close(code?: number, reason?: string): Promise<void>;
  /**
   * The app goes to the background: as the platform's client does, the socket closes by itself
   * after 5 s (`backgroundCloseMs`) unless `foreground()` comes first; resolves once it closed
   * and the function's disconnect call was answered, or when `foreground()` cancelled it.
   */
  background(): Promise<void>;
  /** The app is back in front before the close: the socket stays open. */
  foreground(): void;
}

/** A client the function refused: the status and body connect answered. */
export class ConnectRefusedError extends Error {
  override name = 'ConnectRefusedError';
  constructor(
    readonly status: number,
    readonly body: string,
  ) {
    super(`connect answered ${status}: ${body.slice(0, 200)}`);
  }
}

/** An in-process gateway. */
export interface TestGateway {
  /** Connects a client to `path` (`X-TT-SERVICE-PATH`) as `openid`; rejects with ConnectRefusedError on a non-2xx connect. */
  connect(options: TestConnectOptions): Promise<SimulatedClient>;
  /** Calls the push API as a function would (`{ path: '/ws/push_data', headers, body }`). */
  pushApi(request: { path: string; headers?: Record<string, string>; body?: string | Uint8Array }): PushAnswer;
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

/** The platform's client closes a socket this long after the app goes to the background. */
const BACKGROUND_CLOSE_MS = 5000;

/** A room's headers as the gateway sends them. */
function roomHeaders(room: TestRoom, openid: string): Record<string, string> {
  return {
    'x-room-id': room.roomid,
    'x-anchor-openid': room.anchorOpenid ?? openid,
    ...(room.nickName === undefined ? {} : { 'x-nick-name': room.nickName }),
    ...(room.avatarUrl === undefined ? {} : { 'x-avatar-url': room.avatarUrl }),
  };
}

function received(data: Buffer, binary: boolean): ReceivedMessage {
  const text = data.toString('utf8');
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { data, text, json, binary };
}

function answered(answer: AppAnswer | undefined): UplinkAnswer {
  if (answer === undefined) return { status: 0, text: '', json: undefined };
  const message = received(answer.body, false);
  return { status: answer.status, text: message.text, json: message.json };
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
  const list = Array.isArray(targets) ? (targets as readonly InvokeTarget[]) : [targets as InvokeTarget];
  const functions: FunctionSpec[] = [];
  const routes: Record<string, string> = {};
  let runtime: Awaited<ReturnType<typeof mount>>['runtime'] | undefined;
  for (const target of list) {
    const mounted = await mount(target, {}, options.cwd === undefined ? {} : { cwd: options.cwd });
    functions.push(mounted.fn);
    Object.assign(routes, mounted.routes);
    runtime ??= mounted.runtime;
  }
  await loadRoutePatterns(routes);
  const sink = createMemorySink();
  let gateway: Gateway | undefined;
  // The calls come from the gateway: its X-TT-* headers are trusted, as behind the platform's.
  // The push hosts are this server's while it is open (the process's host table).
  const stand = serveInMemory(
    { functions, routes, options: { ...runtime!, trustGatewayHeaders: true }, logger: new Logger(sink) },
    [{ name: 'gateway', hosts: () => ({ 'ws-push': pushRoute(() => gateway) }) }],
  );
  const { app, server } = stand;
  const user = resolveDevUser({});
  const agent = injectAgent(server);
  const bound = new Gateway({
    call: injectCaller(server, agent),
    identity: { appid: user.appid, envId: 'env-dev', serviceId: 'dev-service', ...options.identity },
    functionOf: (path) => app.router.match(path, safeDecode(path))?.fn.name,
  });
  gateway = bound;
  const activity: GatewayActivity[] = [];
  const pushes: TestGateway['pushes'] = [];
  bound.observe((entry) => {
    activity.push(entry);
    if (entry.type === 'push') pushes.push(entry);
  });

  const sockets = new Map<string, number>();
  const connect: TestGateway['connect'] = async ({ path, openid, ip, room, client: owner }) => {
    const user = openid ?? options.defaultOpenid ?? 'dev-openid';
    const holder = owner ?? user;
    const held = sockets.get(holder) ?? 0;
    if (held >= MAX_CLIENT_SOCKETS) throw new SocketLimitError(holder);
    sockets.set(holder, held + 1);
    let released = false;
    const release = (): void => {
      if (released) return;
      released = true;
      const left = (sockets.get(holder) ?? 1) - 1;
      if (left <= 0) sockets.delete(holder);
      else sockets.set(holder, left);
    };
    const opened = await bound.open({
      path,
      openid: user,
      ip: ip ?? '127.0.0.1',
      ...(room === undefined ? {} : { room: roomHeaders(room, user) }),
    });
    if (!opened.ok) {
      release();
      throw new ConnectRefusedError(opened.answer.status, opened.answer.body.toString('utf8'));
    }
    let backgrounded: { timer: NodeJS.Timeout; done: () => void } | undefined;
    const messages: ReceivedMessage[] = [];
    let taken = 0;
    const waiting: ((message: ReceivedMessage) => void)[] = [];
    const client: SimulatedClient = {
      sessionId: opened.sessionId,
      openid: user,
      messages,
      closed: undefined,
      send: async (data) => {
        const binary = typeof data !== 'string';
        const bytes = binary ? Buffer.from(data) : Buffer.from(data, 'utf8');
        return answered(await bound.uplink(opened.sessionId, bytes, binary));
      },
      next: (timeoutMs = 5000) => {
        if (taken < messages.length) return Promise.resolve(messages[taken++]!);
        return new Promise((resolve, reject) => {
          const timer = setTimeout(
            () => reject(new Error(`no message pushed to session ${opened.sessionId} within ${timeoutMs} ms`)),
            timeoutMs,
          );
          waiting.push((message) => {
            clearTimeout(timer);
            taken++;
            resolve(message);
          });
        });
      },
      close: async (code = CLOSE_CODES.normal, reason = '') => {
        client.closed ??= { code, reason };
        release();
        await bound.closed(opened.sessionId, code, reason);
      },
      background: () =>
        new Promise<void>((resolve) => {
          if (client.closed !== undefined) return resolve();
          backgrounded ??= {
            timer: setTimeout(() => {
              backgrounded = undefined;
              void client.close(CLOSE_CODES.normal, 'the app went to the background').then(resolve);
            }, options.backgroundCloseMs ?? BACKGROUND_CLOSE_MS),
            done: resolve,
          };
        }),
      foreground: () => {
        if (backgrounded === undefined) return;
        clearTimeout(backgrounded.timer);
        backgrounded.done();
        backgrounded = undefined;
      },
    };
    bound.attach(opened.sessionId, {
      send: (data, binary) => {
        const message = received(Buffer.from(data), binary);
        messages.push(message);
        waiting.shift()?.(message);
      },
      close: (code, reason) => {
        client.closed ??= { code, reason };
        release();
      },
    });
    return client;
  };

  return {
    connect,
    pushApi: ({ path, headers = {}, body = '' }) => {
      const lower: Record<string, string> = {};
      for (const [name, value] of Object.entries(headers)) lower[name.toLowerCase()] = value;
      return handlePush(bound, {
        method: 'POST',
        path,
        headers: lower,
        body: typeof body === 'string' ? Buffer.from(body, 'utf8') : Buffer.from(body),
      });
    },
    pushes,
    activity,
    logs: sink.records,
    gateway: bound,
    close: async () => {
      await bound.close(CLOSE_CODES.goingAway, 'the test gateway closed');
      agent.destroy();
      await stand.close();
    },
  };
}
