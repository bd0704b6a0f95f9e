/**
 * A TCP proxy in front of redis-server for one client of it: `freeze()` holds every byte both
 * ways, as a SIGSTOPped process looks to Redis (and Redis to it), `thaw()` lets them through in
 * order, `kill()` cuts every connection and refuses new ones, as a process killed with -9.
 */
import { createConnection, createServer, type Server, type Socket } from 'node:net';

interface Pair {
  client: Socket;
  upstream: Socket;
  held: { to: Socket; chunk: Buffer }[];
}

export class TcpProxy {
  port = 0;
  #server: Server | undefined;
  readonly #pairs = new Set<Pair>();
  #frozen = false;
  #killed = false;

  constructor(readonly target: number) {}

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  async start(): Promise<this> {
    const server = createServer((client) => {
      if (this.#killed) return void client.destroy();
      const upstream = createConnection({ port: this.target, host: '127.0.0.1' });
      const pair: Pair = { client, upstream, held: [] };
      this.#pairs.add(pair);
      const forward = (to: Socket) => (chunk: Buffer) => {
        if (this.#frozen) pair.held.push({ to, chunk });
        else to.write(chunk);
      };
      client.on('data', forward(upstream));
      upstream.on('data', forward(client));
      const end = () => {
        this.#pairs.delete(pair);
        client.destroy();
        upstream.destroy();
      };
      client.on('close', end).on('error', end);
      upstream.on('close', end).on('error', end);
    });
    this.#server = server;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    this.port = (server.address() as { port: number }).port;
    return this;
  }

  freeze(): void {
    this.#frozen = true;
  }

  thaw(): void {
    this.#frozen = false;
    for (const pair of this.#pairs) {
      for (const { to, chunk } of pair.held) to.write(chunk);
      pair.held.length = 0;
    }
  }

  kill(): void {
    this.#killed = true;
    for (const pair of this.#pairs) {
      pair.client.destroy();
      pair.upstream.destroy();
    }
  }

  async close(): Promise<void> {
    this.kill();
    await new Promise((resolve) => this.#server?.close(resolve));
  }
}
