/**
 * A connection without a socket: two in-memory streams joined back to back. One end is handed
 * to a node:http server as if a client had connected, the other to node:http's client, so a
 * request goes through node's own parser, header limits and response writer, with no port.
 */
import { Duplex } from 'node:stream';

/** One end of a pair: what is written here is read at the other end. */
class MemoryEnd extends Duplex {
  peer: MemoryEnd | undefined;
  // node:http reads these off a socket; the values describe a loopback peer.
  readonly remoteAddress = '127.0.0.1';
  readonly remotePort = 0;
  readonly remoteFamily = 'IPv4';
  readonly localAddress = '127.0.0.1';
  readonly localPort = 0;
  readonly encrypted = false;
  /** Marks a request that did not come over a socket: the server's guard (http-server.ts) skips it. */
  readonly inMemory = true;

  override _read(): void {
    // Data is pushed by the peer's writes; nothing to pull.
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    this.peer?.push(chunk);
    callback();
  }

  override _final(callback: (error?: Error | null) => void): void {
    this.peer?.push(null);
    callback();
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    // A socket closed at one end is closed at both, as a TCP reset would be.
    const peer = this.peer;
    this.peer = undefined;
    if (peer !== undefined && !peer.destroyed) {
      peer.peer = undefined;
      peer.destroy();
    }
    callback(error);
  }

  // Sockets have these; a memory connection has nothing to tune, and no idle timer to arm.
  setTimeout(_ms: number, _callback?: () => void): this {
    return this;
  }
  setNoDelay(_noDelay?: boolean): this {
    return this;
  }
  setKeepAlive(_enable?: boolean, _delay?: number): this {
    return this;
  }
  ref(): this {
    return this;
  }
  unref(): this {
    return this;
  }
}

/**
 * Creates a connected pair: `[client, server]`.
 * @example const [client, server] = memoryConnection(); httpServer.emit('connection', server);
 */
export function memoryConnection(): [client: Duplex, server: Duplex] {
  const client = new MemoryEnd();
  const server = new MemoryEnd();
  client.peer = server;
  server.peer = client;
  return [client, server];
}
