/**
 * The gateway on real sockets: the `upgrade` requests of an http server at
 * `/__dycloud__/ws/connect/` become connections of a `Gateway`, through the `ws` package (the
 * standard server: RFC 6455 framing, masking, fragments, UTF-8 checks and the close handshake,
 * with no dependency of its own; imported on the first upgrade, so a server that never sees one
 * never loads it). This file owns what the client sees: the refusal on the upgrade, ping/pong,
 * the idle timeout and the close codes (docs/gateway.md#close-codes).
 */
import { failureText } from './envelope.js';
import { STATUS_CODES, type IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { WebSocket, WebSocketServer } from 'ws';
import { platformError } from '../errors.js';
import type { AppAnswer, Gateway } from './gateway.js';
import { CLIENT_HEADERS, CLIENT_QUERY, CLOSE_CODES, CONNECT_PATH, ROOM_HEADERS } from './names.js';
import { upgradeProblem } from './upgrade-check.js';
import { DEFAULT_MAX_QUEUED_BYTES } from './gateway-options.js';

/** The largest message a client may send by default: 10 MiB. */
const DEFAULT_MAX_PAYLOAD = 10 * 1024 * 1024;

/** Options of the socket side. */
export interface GatewaySocketOptions {
  gateway: Gateway;
  /** The user when the client names none (the dev user's openid); '' for none (no `X-TT-OPENID` is sent). */
  defaultOpenid: string;
  /**
   * Take the user, the live room and the client's address from the upgrade's headers
   * (`X-TT-OPENID`, ROOM_HEADERS, `X-Forwarded-For`) and query: true under `cloudfn dev`, and
   * under `cloudfn start` only with `trustGatewayHeaders` (a front that set them). When false a
   * client claims no user or room: every connection gets `defaultOpenid` and `defaultRoom`.
   * @default true
   */
  trustClientHeaders?: boolean;
  /** The live room's headers when the client sends none of ROOM_HEADERS (the dev user's room). */
  defaultRoom?: Readonly<Record<string, string>>;
  /** Close a connection after this long without a message either way; 0 never. @default 600_000 (10 min) */
  idleTimeoutMs?: number;
  /** Ping each client this often; one that has not answered the previous ping is cut. @default 30_000 */
  pingIntervalMs?: number;
  /** The largest message a client may send, in bytes (larger: close 1009). @default 10 MiB */
  maxPayload?: number;
  /**
   * The most bytes one connection may have waiting to be sent; a push past it closes the
   * connection with 4009 (the client reads too slowly) and fails. @default DEFAULT_MAX_QUEUED_BYTES (8 MiB)
   */
  maxQueuedBytes?: number;
  /**
   * Told of the live room a client sent on an accepted upgrade (its own ROOM_HEADERS, not the
   * default room): the live rooms take the room's anchor from it. @default nothing
   */
  onRoom?: (room: Readonly<Record<string, string>>, sessionId: string) => void;
  /** Refuse an upgrade without a fresh id from `/ws/get_conn_id`, as a custom domain does. @default false */
  requireConnId?: boolean;
  /** Told once when a connection is cut for reading too slowly. @default nothing */
  onOverflow?: (sessionId: string, queuedBytes: number) => void;
  /** What a client asking to connect while the server stops is told (503). @default 'the dev server is stopping' */
  stoppingMessage?: string;
}

interface Live {
  ws: WebSocket;
  sessionId: string;
  lastActive: number;
  awaitingPong: boolean;
  lastPing: number;
  /** The close code and reason `ws` sent for a bad frame (1009 for a message over maxPayload). */
  refused?: { code: number; reason: string };
}

/**
 * The close code `ws` sends for each error it finds in a client's frames (its receiver's
 * status codes, RFC 6455 7.4.1), by the error's `code`: too big 1009, bad UTF-8 1007, too many
 * fragments 1008, anything else a protocol error 1002.
 */
function closeCodeOf(error: Error & { code?: unknown }): number | undefined {
  const code = error.code;
  if (typeof code !== 'string' || !code.startsWith('WS_ERR_')) return undefined;
  if (code === 'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH' || code === 'WS_ERR_UNSUPPORTED_DATA_PAYLOAD_LENGTH') return 1009;
  if (code === 'WS_ERR_INVALID_UTF8') return 1007;
  if (code === 'WS_ERR_TOO_MANY_BUFFERED_PARTS') return 1008;
  return 1002;
}

/** The first non-empty value of a header, else of the query parameters standing for it. */
function fromClient(req: IncomingMessage, url: URL, key: keyof typeof CLIENT_HEADERS): string | undefined {
  const raw = req.headers[CLIENT_HEADERS[key]];
  const value = Array.isArray(raw) ? raw[0] : raw;
  if (value !== undefined && value.trim() !== '') return value.trim();
  for (const [name, given] of url.searchParams) {
    if (CLIENT_QUERY[key].includes(name.toLowerCase()) && given.trim() !== '') return given.trim();
  }
  return undefined;
}

/**
 * The client's own live room (the ROOM_HEADERS it sent on the upgrade), or undefined when it
 * sent none; a string when a value is not printable ASCII (the reason to refuse).
 */
function roomOf(req: IncomingMessage): Record<string, string> | string | undefined {
  let room: Record<string, string> | undefined;
  for (const name of ROOM_HEADERS) {
    const raw = req.headers[name];
    const value = Array.isArray(raw) ? raw[0] : raw;
    if (value === undefined || value === '') continue;
    if (!/^[\x20-\x7e]{1,2048}$/.test(value))
      return `${name} must be 1 to 2048 printable ASCII characters (percent-encode a nickname), got ${JSON.stringify(value)}`;
    (room ??= {})[name] = value;
  }
  return room;
}

/** The first address of `X-Forwarded-For` (the client, as a front that sets it writes it first). */
function forwardedFor(req: IncomingMessage): string | undefined {
  const raw = req.headers['x-forwarded-for'];
  const first = (Array.isArray(raw) ? raw[0] : raw)?.split(',')[0]?.trim();
  return first === undefined || first === '' ? undefined : first;
}

/** Writes an HTTP answer on a socket that asked to upgrade, and closes it. */
function refuse(socket: Duplex, answer: AppAnswer, logid: string, extra: Record<string, string> = {}): void {
  if (socket.destroyed) return;
  const type = answer.headers['content-type'] ?? 'application/json; charset=utf-8';
  const more = Object.entries(extra)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  socket.write(
    `HTTP/1.1 ${answer.status} ${STATUS_CODES[answer.status] ?? 'Refused'}\r\n` +
      `content-type: ${String(type)}\r\ncontent-length: ${answer.body.length}\r\n${more}` +
      `x-tt-logid: ${logid}\r\nconnection: close\r\n\r\n`,
  );
  // Destroyed once written: some clients (undici) wait for the socket to close to report it.
  socket.end(answer.body, () => socket.destroy());
}

/** A close frame's reason holds at most 123 bytes (RFC 6455 5.5.1); a longer one is cut with `…`. */
export function closeReason(reason: string): string {
  if (Buffer.byteLength(reason) <= 123) return reason;
  let cut = reason.slice(0, 120);
  while (Buffer.byteLength(`${cut}…`) > 123) cut = cut.slice(0, -1);
  return `${cut}…`;
}

function envelope(status: number, message: string): AppAnswer {
  const body = Buffer.from(failureText(40001, message));
  return { status, headers: { 'content-type': 'application/json; charset=utf-8' }, body };
}

/** The socket side of a gateway; one per http server. */
export class GatewaySocketServer {
  readonly #options: GatewaySocketOptions;
  readonly #live = new Set<Live>();
  #wss: Promise<WebSocketServer> | undefined;
  #tick: NodeJS.Timeout | undefined;
  #closing = false;

  constructor(options: GatewaySocketOptions) {
    this.#options = options;
  }

  /** The connections open now. */
  get size(): number {
    return this.#live.size;
  }

  #stopping(): string {
    return this.#options.stoppingMessage ?? 'the dev server is stopping';
  }

  /** Refuses new connections (503) from now on, leaving the open ones be; `close` closes them. */
  refuseNew(): void {
    this.#closing = true;
  }

  #server(): Promise<WebSocketServer> {
    return (this.#wss ??= import('ws').then(
      ({ WebSocketServer }) =>
        new WebSocketServer({ noServer: true, maxPayload: this.#options.maxPayload ?? DEFAULT_MAX_PAYLOAD }),
    ));
  }

  /**
   * Takes an `upgrade` request: answers false (and leaves the socket) when it is not for the
   * connect path.
   * @example server.on('upgrade', (req, socket, head) => { if (!sockets.handleUpgrade(req, socket, head)) socket.destroy() })
   */
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): boolean {
    const url = new URL(req.url ?? '/', 'http://gateway.local');
    if (url.pathname !== CONNECT_PATH && `${url.pathname}/` !== CONNECT_PATH) return false;
    this.#connect(req, socket, head, url).catch((error: unknown) => {
      // A failure of the gateway itself: the client gets a 500, never a hanging upgrade.
      const detail = error instanceof Error ? error.message : String(error);
      refuse(socket, envelope(500, `the local gateway failed: ${detail}`), '');
    });
    return true;
  }

  async #connect(req: IncomingMessage, socket: Duplex, head: Buffer, url: URL): Promise<void> {
    const onError = (): void => void socket.destroy();
    socket.on('error', onError);
    if (this.#closing) return refuse(socket, envelope(503, this.#stopping()), '');
    // Checked before connect: the function hears only of connections that will open.
    const problem = upgradeProblem(req);
    if (problem !== undefined) {
      const message = platformError('PLATFORM_WS_CONNECT_REFUSED', problem.message).message;
      return refuse(socket, envelope(problem.status, message), '', problem.headers);
    }
    const path = fromClient(req, url, 'servicePath');
    const connId = fromClient(req, url, 'connId');
    if (path === undefined || !/^\/[\x21-\x7e]*$/.test(path)) {
      const detail =
        path === undefined
          ? 'no function path: send X-TT-SERVICE-PATH: /your_function (or ?service_path=/your_function)'
          : `X-TT-SERVICE-PATH must be a path starting with / in printable ASCII (percent-encode the rest), got ${JSON.stringify(path)}`;
      return refuse(socket, envelope(400, platformError('PLATFORM_WS_CONNECT_REFUSED', detail).message), '');
    }
    const require = this.#options.requireConnId === true;
    const check =
      connId === undefined
        ? require
          ? 'missing'
          : 'ok'
        : await this.#options.gateway.directory.takeConnId(connId, require);
    if (check !== 'ok') {
      const detail =
        check === 'missing'
          ? 'X-TT-WS-CONN-ID (or ?conn_id=) is required (CLOUDFN_WS_REQUIRE_CONN_ID): get one from POST /ws/get_conn_id'
          : check === 'used'
            ? `X-TT-WS-CONN-ID ${connId} was already used; a connection ID is good for one connection, get a new one`
            : `X-TT-WS-CONN-ID ${connId} was not issued by /ws/get_conn_id (CLOUDFN_WS_REQUIRE_CONN_ID is on); get one there`;
      return refuse(socket, envelope(400, platformError('PLATFORM_WS_CONNECT_REFUSED', detail).message), '');
    }
    let gone = false;
    const onGone = (): void => {
      gone = true;
    };
    socket.once('close', onGone);
    const trusted = this.#options.trustClientHeaders !== false;
    const ip = ((trusted ? forwardedFor(req) : undefined) ?? req.socket.remoteAddress ?? '127.0.0.1').replace(
      /^::ffff:/,
      '',
    );
    const openid = (trusted ? fromClient(req, url, 'openid') : undefined) ?? this.#options.defaultOpenid;
    if (openid !== '' && !/^[\x20-\x7e]{1,256}$/.test(openid)) {
      const detail = `the openid must be 1 to 256 printable ASCII characters (it is sent in X-TT-OPENID), got ${JSON.stringify(openid)}`;
      return refuse(socket, envelope(400, platformError('PLATFORM_WS_CONNECT_REFUSED', detail).message), '');
    }
    const own = trusted ? roomOf(req) : undefined;
    const room = own ?? this.#options.defaultRoom;
    if (typeof room === 'string')
      return refuse(socket, envelope(400, platformError('PLATFORM_WS_CONNECT_REFUSED', room).message), '');
    const [wss, opened] = await Promise.all([
      this.#server(),
      this.#options.gateway.open({ path, openid, ip, ...(room === undefined ? {} : { room }) }),
    ]);
    if (!opened.ok) return refuse(socket, opened.answer, opened.logid);
    if (gone || this.#closing) {
      await this.#options.gateway.closed(opened.sessionId, 1006, 'the client left before the connection opened');
      if (!gone) refuse(socket, envelope(503, this.#stopping()), opened.logid);
      return;
    }
    // These listeners (and what their closures hold: the connect answer) must not live as long
    // as the connection: ws installs its own.
    socket.off('close', onGone);
    socket.off('error', onError);
    const sessionId = opened.sessionId;
    let adopted = false;
    wss.handleUpgrade(req, socket, head, (ws) => {
      adopted = true;
      this.#adopt(ws, sessionId);
    });
    // The library completes an upgrade at once or refuses it; a refusal ends the session, so
    // its connect gets a disconnect and nothing stays listed.
    if (!adopted) return this.#options.gateway.closed(sessionId, 1006, 'the upgrade was refused');
    if (typeof own === 'object') this.#options.onRoom?.(own, sessionId);
  }

  #adopt(ws: WebSocket, sessionId: string): void {
    const { gateway } = this.#options;
    const live: Live = { ws, sessionId, lastActive: Date.now(), awaitingPong: false, lastPing: Date.now() };
    this.#live.add(live);
    this.#arm();
    ws.on('message', (data: Buffer | ArrayBuffer | Buffer[], isBinary: boolean) => {
      live.lastActive = Date.now();
      const bytes = Buffer.isBuffer(data)
        ? data
        : Array.isArray(data)
          ? Buffer.concat(data)
          : Buffer.from(data as ArrayBuffer);
      void gateway.uplink(sessionId, bytes, isBinary);
    });
    ws.on('pong', () => {
      live.awaitingPong = false;
    });
    // A bad frame from the client (a message over maxPayload): ws has already queued the close
    // frame with its code (1009) and ends the socket once it is written, reading no more.
    // Terminating here destroyed the socket first, so the client saw 1006 and no code; a
    // socket error needs nothing either, as ws destroys the socket itself.
    ws.on('error', (error: Error) => {
      const code = closeCodeOf(error);
      if (code === undefined) return;
      const max = this.#options.maxPayload ?? DEFAULT_MAX_PAYLOAD;
      live.refused = {
        code,
        reason: code === 1009 ? `a message over the ${max} bytes a client may send` : error.message,
      };
    });
    ws.on('close', (code: number, reason: Buffer) => {
      this.#live.delete(live);
      // The client's answering close frame is never read after a bad frame: the function is
      // told the code the client was sent, not 1006.
      const told = code === 1006 && live.refused !== undefined ? live.refused : undefined;
      void gateway.closed(sessionId, told?.code ?? code, told?.reason ?? reason.toString('utf8'));
    });
    const bound = this.#options.maxQueuedBytes ?? DEFAULT_MAX_QUEUED_BYTES;
    gateway.attach(sessionId, {
      send: (data, binary) => {
        if (ws.readyState !== ws.OPEN) return false;
        const queued = ws.bufferedAmount;
        // One frame of any size goes when nothing waits; what waits is bounded.
        if (queued > 0 && queued + data.length > bound) {
          // The client reads nothing (or too little): it is cut, not buffered for without end.
          // A close frame would wait behind what it does not read, so the socket is dropped,
          // and the function's disconnect says why.
          const reason = `the client read too slowly: ${queued + data.length} bytes would wait, over ${bound}`;
          this.#options.onOverflow?.(sessionId, queued);
          void gateway.closed(sessionId, CLOSE_CODES.tooSlow, reason);
          ws.terminate();
          return false;
        }
        live.lastActive = Date.now();
        ws.send(data, { binary });
        return true;
      },
      close: (code, reason) => {
        if (ws.readyState === ws.OPEN || ws.readyState === ws.CONNECTING) ws.close(code, closeReason(reason));
      },
    });
  }

  /** One timer for every connection: idle timeouts and the heartbeat. */
  #arm(): void {
    if (this.#tick !== undefined) return;
    const idle = this.#options.idleTimeoutMs ?? 600_000;
    const ping = this.#options.pingIntervalMs ?? 30_000;
    const every = Math.max(20, Math.min(1000, idle > 0 ? idle / 4 : 1000, ping / 4));
    this.#tick = setInterval(() => {
      const now = Date.now();
      for (const live of this.#live) {
        if (idle > 0 && now - live.lastActive >= idle) {
          live.ws.close(CLOSE_CODES.idle, `idle for ${idle} ms`);
          continue;
        }
        if (now - live.lastPing < ping) continue;
        if (live.awaitingPong) {
          live.ws.terminate();
          continue;
        }
        live.awaitingPong = true;
        live.lastPing = now;
        live.ws.ping();
      }
      if (this.#live.size === 0) {
        clearInterval(this.#tick);
        this.#tick = undefined;
      }
    }, every).unref();
  }

  /**
   * Closes every connection with `code` (each gets its disconnect call), and refuses new ones.
   * @example await sockets.close(1001, 'the dev server is stopping')
   */
  async close(code: number = CLOSE_CODES.goingAway, reason = 'the dev server is stopping'): Promise<void> {
    this.#closing = true;
    clearInterval(this.#tick);
    this.#tick = undefined;
    await this.#options.gateway.close(code, reason);
    // Clients that do not answer the close handshake are cut after a moment.
    const pending = [...this.#live];
    await new Promise<void>((resolve) => {
      if (pending.every((live) => live.ws.readyState === live.ws.CLOSED)) return resolve();
      const timer = setTimeout(() => {
        for (const live of pending) live.ws.terminate();
        resolve();
      }, 1000);
      timer.unref();
      let left = pending.length;
      for (const live of pending)
        live.ws.once('close', () => {
          if (--left === 0) {
            clearTimeout(timer);
            resolve();
          }
        });
    });
    if (this.#wss !== undefined) (await this.#wss).close();
  }
}
