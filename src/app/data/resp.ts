/**
 * A Redis connection speaking RESP2 over one socket, enough for `cloudfn db` to read and write
 * every key of a local component: commands in order, each answered in turn. cloudfn does not
 * depend on a Redis client (ioredis is an optional peer), and the export must work in a project
 * that has none.
 */
import { connect, type Socket } from 'node:net';

/** A reply: a simple or bulk string (as bytes), an integer, null, or an array of replies. */
export type Reply = Buffer | number | null | Reply[];

/** An error reply of the server (`-ERR …`). */
export class RedisReplyError extends Error {}

/** Parses one reply at `at`; undefined when `buffer` does not hold all of it yet. */
function parse(buffer: Buffer, at: number): { value: Reply | RedisReplyError; next: number } | undefined {
  const end = buffer.indexOf('\r\n', at);
  if (end === -1) return undefined;
  const kind = String.fromCharCode(buffer[at]!);
  const line = buffer.subarray(at + 1, end);
  const after = end + 2;
  if (kind === '+') return { value: Buffer.from(line), next: after };
  if (kind === '-') return { value: new RedisReplyError(line.toString()), next: after };
  if (kind === ':') return { value: Number(line.toString()), next: after };
  const size = Number(line.toString());
  if (kind === '$') {
    if (size < 0) return { value: null, next: after };
    if (buffer.length < after + size + 2) return undefined;
    return { value: Buffer.from(buffer.subarray(after, after + size)), next: after + size + 2 };
  }
  if (kind === '*') {
    if (size < 0) return { value: null, next: after };
    const items: Reply[] = [];
    let next = after;
    for (let i = 0; i < size; i++) {
      const item = parse(buffer, next);
      if (item === undefined) return undefined;
      if (item.value instanceof RedisReplyError) throw item.value;
      items.push(item.value);
      next = item.next;
    }
    return { value: items, next };
  }
  throw new Error(`redis answered a reply of unknown type ${JSON.stringify(kind)}`);
}

/** One connection; `send` resolves with the command's reply or rejects with its error reply. */
export class RedisConnection {
  readonly #socket: Socket;
  readonly #waiting: { resolve: (reply: Reply) => void; reject: (error: Error) => void }[] = [];
  #buffer: Buffer = Buffer.alloc(0);
  #failure: Error | undefined;

  private constructor(socket: Socket) {
    this.#socket = socket;
    socket.on('data', (chunk: Buffer) => this.#read(chunk));
    const fail = (error: Error): void => {
      this.#failure ??= error;
      for (const waiter of this.#waiting.splice(0)) waiter.reject(this.#failure);
    };
    socket.on('error', fail);
    socket.on('close', () => fail(new Error('redis closed the connection')));
  }

  /**
   * Connects to `url` (`redis://user:password@host:port`) and authenticates.
   * @example const redis = await RedisConnection.open('redis://cloudfn:pw@127.0.0.1:6390'); await redis.send('PING');
   */
  static async open(url: string): Promise<RedisConnection> {
    const parsed = new URL(url);
    const socket = connect({ host: parsed.hostname.replace(/^\[|\]$/g, ''), port: Number(parsed.port || 6379) });
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', resolve);
      socket.once('error', reject);
    });
    const connection = new RedisConnection(socket);
    const password = decodeURIComponent(parsed.password);
    if (password !== '') {
      const user = decodeURIComponent(parsed.username);
      await connection.send(...(user === '' ? ['AUTH', password] : ['AUTH', user, password]));
    }
    return connection;
  }

  #read(chunk: Buffer): void {
    this.#buffer = this.#buffer.length === 0 ? chunk : Buffer.concat([this.#buffer, chunk]);
    for (;;) {
      let parsed: ReturnType<typeof parse>;
      try {
        parsed = parse(this.#buffer, 0);
      } catch (error) {
        this.#waiting.shift()?.reject(error as Error);
        this.#buffer = Buffer.alloc(0);
        return;
      }
      if (parsed === undefined) return;
      this.#buffer = this.#buffer.subarray(parsed.next);
      const waiter = this.#waiting.shift();
      if (parsed.value instanceof RedisReplyError) waiter?.reject(parsed.value);
      else waiter?.resolve(parsed.value);
    }
  }

  /** Sends one command. @example await redis.send('SET', 'a', '1') */
  send(...args: (string | Buffer | number)[]): Promise<Reply> {
    if (this.#failure !== undefined) return Promise.reject(this.#failure);
    const parts: Buffer[] = [Buffer.from(`*${args.length}\r\n`)];
    for (const arg of args) {
      const bytes = Buffer.isBuffer(arg) ? arg : Buffer.from(String(arg));
      parts.push(Buffer.from(`$${bytes.length}\r\n`), bytes, Buffer.from('\r\n'));
    }
    return new Promise((resolve, reject) => {
      this.#waiting.push({ resolve, reject });
      this.#socket.write(Buffer.concat(parts));
    });
  }

  /** Closes the connection. */
  close(): void {
    this.#socket.destroy();
  }
}
