/**
 * The connection limit of one app (the `maxConnections` option). A connection opened past it
 * sheds another rather than being refused: the longest-open idle keep-alive connection (nothing
 * in flight, nothing unsent), else the longest-open one that has not sent a whole request head
 * in `HEADLESS_GRACE_MS` (a header dripper or a silent client), as nginx reuses its idle
 * connections. A connection closing after its last answer (a 408, `Connection: close`: it only
 * lingers, linger.ts) stops counting instead, and closes on its own. Only when none can be shed
 * is its request answered 503
 * `CLOUDFN_TOO_MANY_CONNECTIONS` with `Retry-After` and the connection closed (handle.ts). It
 * also counts the connections closed because an answer waited past `sendTimeout` for a client
 * that did not read it (response.ts), and shortens the keep-alive timers of idle connections
 * when the app comes under pressure (overload.ts).
 *
 * The server's own calls (in-memory connections: `inject`, the WebSocket gateway's calls to the
 * function, a function's call to a host this process answers) are not counted: at a limit full
 * of WebSockets, which are never shed, they would be refused and the gateway could not even
 * report a disconnect.
 */
import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { isLingering } from '../request/linger.js';
import type { Overload } from './overload.ts';
import { monotonicMs } from '../request/clock.js';

const OVER_LIMIT = Symbol('cloudfn.overConnectionLimit');
const OPENED = Symbol('cloudfn.openedAt');
type Counted = Socket & {
  [OVER_LIMIT]?: boolean;
  [OPENED]?: number;
  /** node's: the response in flight on the socket. */
  _httpMessage?: ServerResponse | null;
  /** node's: the HTTP parser, null once the socket was handed over (an upgrade, CONNECT). */
  parser?: object | null;
};

/** A socket still read as HTTP with nothing in flight and nothing unsent. */
function quiet(s: Counted): boolean {
  return !s.destroyed && s.writable && s.parser != null && s._httpMessage == null && s.writableLength === 0;
}

/**
 * A connection younger than this is never shed for having sent no whole head yet: a client's
 * head normally follows its connection within a round trip.
 */
export const HEADLESS_GRACE_MS = 1000;

/** Counts the connections of a server against `limit` (0 is no limit), and sheds to admit new ones. */
export class ConnectionLimit {
  readonly limit: number;
  readonly #overload: Overload | undefined;
  readonly #memoryHeld: () => number;
  /** Open connections not yet shed, oldest first (a Set keeps the order of insertion). */
  readonly #open = new Set<Socket>();
  #refused = 0;
  #sendTimeouts = 0;

  constructor(limit: number, { overload, memoryHeld }: { overload?: Overload; memoryHeld?: () => number } = {}) {
    this.limit = limit;
    this.#overload = overload;
    this.#memoryHeld = memoryHeld ?? (() => 0);
    overload?.onChange.push((active) => {
      if (active) this.#shortenIdle();
    });
  }

  /** Connections open now (those shed are no longer counted, though their close may be pending). */
  get open(): number {
    return this.#open.size;
  }

  /** Requests refused because their connection was over the limit and nothing could be shed. */
  get refused(): number {
    return this.#refused;
  }

  /** Connections closed because an answer waited past `sendTimeout` for its client to read. */
  get sendTimeouts(): number {
    return this.#sendTimeouts;
  }

  /** Counts a connection closed for `sendTimeout` (response.ts). */
  sendTimedOut(): void {
    this.#sendTimeouts++;
  }

  /**
   * Counts a new connection until it closes. Past the limit it sheds another connection to make
   * room, or marks this one, whose request is then refused unless room was made meanwhile.
   * @example server.on('connection', (socket) => app.connections.opened(socket));
   */
  opened(socket: Socket): void {
    if ((socket as { inMemory?: boolean }).inMemory === true) return;
    const s = socket as Counted;
    this.#open.add(socket);
    s[OPENED] = monotonicMs();
    socket.once('close', () => {
      if (this.#open.delete(socket)) this.#overload?.update(this.#open.size, this.#memoryHeld());
    });
    if (this.limit > 0 && this.#open.size > this.limit && !this.#shed(socket)) s[OVER_LIMIT] = true;
    this.#overload?.update(this.#open.size, this.#memoryHeld());
  }

  /**
   * True for a connection opened past the limit for which no room was made since: counts the
   * refusal its request gets. One property read for every other request.
   */
  refuses(socket: Socket): boolean {
    const s = socket as Counted;
    if (s[OVER_LIMIT] !== true) return false;
    if (this.#open.size <= this.limit || this.#shed(socket)) {
      s[OVER_LIMIT] = false;
      return false;
    }
    this.#refused++;
    this.#overload?.note('connectionRefused', { connections: this.#open.size, maxConnections: this.limit });
    return true;
  }

  /**
   * Makes room for `keep`: stops counting a connection that only lingers after its last answer
   * (it closes within `LINGER_MS`; nothing is cut), else closes the longest-open idle keep-alive
   * one, else the longest-open one without a whole request head past the grace. False when none
   * qualifies.
   */
  #shed(keep: Socket): boolean {
    const now = monotonicMs();
    let idle: Counted | undefined;
    let headless: Counted | undefined;
    for (const socket of this.#open) {
      if (socket === keep) continue;
      const s = socket as Counted;
      // Answered and closing (a 408 to a dripper, a Connection: close answer): it holds no
      // place a request could use. Under a mass of headers timeouts these are all there is.
      if (isLingering(s)) {
        this.#open.delete(s);
        return true;
      }
      if (idle !== undefined || !quiet(s)) continue;
      // Answered before and nothing in flight: idle between requests. Never answered: no
      // whole head yet (node assigns a response as soon as the head is complete). A socket
      // handed over (a WebSocket after its upgrade) has no parser and is never shed here.
      if (s.bytesWritten > 0) idle = s;
      else if (headless === undefined && now - (s[OPENED] ?? now) >= HEADLESS_GRACE_MS) headless = s;
    }
    if (idle !== undefined) return this.#close(idle, 'idleShed');
    return headless !== undefined && this.#close(headless, 'headlessShed');
  }

  #close(socket: Counted, action: 'idleShed' | 'headlessShed'): true {
    this.#open.delete(socket);
    this.#overload?.note(action, { connections: this.#open.size + 1, maxConnections: this.limit });
    socket.destroy();
    return true;
  }

  /** Pressure began: idle keep-alive connections get the shortened keep-alive timeout now. */
  #shortenIdle(): void {
    const ms = this.#overload?.keepAliveTimeout ?? 0;
    if (ms === 0) return;
    for (const socket of this.#open) {
      const s = socket as Counted;
      if (quiet(s) && s.bytesWritten > 0 && (s.timeout ?? 0) > ms) s.setTimeout(ms);
    }
  }
}
