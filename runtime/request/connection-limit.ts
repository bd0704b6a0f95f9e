/**
 * The connection limit of one app (the `maxConnections` option): open connections are counted,
 * and a request arriving on a connection opened past the limit is answered 503
 * `CLOUDFN_TOO_MANY_CONNECTIONS` with `Retry-After` and the connection closed (handle.ts), so
 * the client learns why instead of seeing a reset. It also counts the connections closed because
 * an answer waited past `sendTimeout` for a client that did not read it (response.ts).
 */
import type { Socket } from 'node:net';

const OVER_LIMIT = Symbol('cloudfn.overConnectionLimit');
type Counted = Socket & { [OVER_LIMIT]?: boolean };

/** Counts the connections of a server against `limit` (0 is no limit). */
export class ConnectionLimit {
  readonly limit: number;
  #open = 0;
  #refused = 0;
  #sendTimeouts = 0;

  constructor(limit: number) {
    this.limit = limit;
  }

  /** Connections open now. */
  get open(): number {
    return this.#open;
  }

  /** Requests refused because their connection was over the limit. */
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
   * Counts a new connection until it closes, and marks it when it is over the limit.
   * @example server.on('connection', (socket) => app.connections.opened(socket));
   */
  opened(socket: Socket): void {
    this.#open++;
    if (this.limit > 0 && this.#open > this.limit) (socket as Counted)[OVER_LIMIT] = true;
    socket.once('close', () => {
      this.#open--;
    });
  }

  /** True for a connection opened past the limit; counts the refusal its request gets. */
  refuses(socket: Socket): boolean {
    if ((socket as Counted)[OVER_LIMIT] !== true) return false;
    this.#refused++;
    return true;
  }
}
