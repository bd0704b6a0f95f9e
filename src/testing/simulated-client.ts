/**
 * The simulated clients of `openGateway`: a mini-program's WebSocket as the platform's client
 * holds it (at most 5 sockets per client, closed 5 s after the app goes to the background),
 * connected to a `Gateway` without a socket: its frames are recorded, its uplinks answered by
 * the function through the gateway's calls.
 */
import type { AppAnswer, Gateway } from '../platform/gateway/gateway.js';
import { CLOSE_CODES } from '../platform/gateway/names.js';

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

/** What the clients of one gateway share. */
export interface ClientOptions {
  /** @default 'dev-openid' */
  defaultOpenid?: string;
  /** @default 5000 */
  backgroundCloseMs?: number;
}

/**
 * How clients connect to `bound`: each call opens one (its connect call answered by the
 * function), counted against its holder's 5 sockets.
 * @example const connect = clientConnector(gateway, {}); const ann = await connect({ path: '/websocket_callback', openid: 'ann' })
 */
export function clientConnector(
  bound: Gateway,
  options: ClientOptions,
): (connect: TestConnectOptions) => Promise<SimulatedClient> {
  const sockets = new Map<string, number>();
  return async ({ path, openid, ip, room, client: owner }) => {
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
}
