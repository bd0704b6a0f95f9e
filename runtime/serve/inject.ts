/**
 * `inject`: one request written to an http server of the app without a port, the way hono's
 * `app.request()` and fastify's `inject()` do it, but through node's own parser and writer (an
 * in-memory connection, memory-connection.ts), so the request passes the server's hooks, the
 * router, the body parser, the limits and the request line exactly as one from a socket. It is
 * the one in-memory request of cloudfn: `invoke`, the timers, the live rooms and the WebSocket
 * gateway all send through it. Nothing on the path of a served request imports this file;
 * `RunningServer.inject` loads it on first use.
 */
import type { Agent, IncomingHttpHeaders, IncomingMessage, Server } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { memoryConnection } from './memory-connection.js';

// A builtin through process.getBuiltinModule, as the rest of runtime/ takes node:http: its ESM
// namespace would load undici and node:crypto on node 24 (http-server.ts says why).
const http = process.getBuiltinModule('node:http');

/** What to send. */
export interface InjectRequest {
  /** @default 'GET' */
  method?: string;
  /** The path with its query string, e.g. `/hello?name=ann`. */
  path: string;
  /** Sent as given (node adds `content-length` for a body, and `host: localhost` when none is set). @default {} */
  headers?: Readonly<Record<string, string | number | readonly string[]>>;
  /** The whole body. @default none */
  body?: string | Uint8Array;
  /** Called with the server end of a new connection before the server sees it (to mark it). @default none */
  mark?: (serverEnd: Duplex) => void;
  /** Cut the request after this many ms: the connection is destroyed, as a gateway that stops waiting does. @default none */
  limitMs?: number;
  /** Aborts the request, as fetch's signal does. @default none */
  signal?: AbortSignal;
  /** Pooled connections (`injectAgent`) instead of one connection of its own. @default none */
  agent?: Agent;
}

/** What came back. `cut` is true when the limit was reached first (status 0, no body). */
export interface InjectResponse {
  status: number;
  headers: IncomingHttpHeaders;
  /** The headers as sent, name then value, repeated ones kept apart. */
  rawHeaders: string[];
  body: Buffer;
  cut: boolean;
}

/**
 * A keep-alive pool of in-memory connections to `server`: many callers at once (a thousand
 * WebSocket clients connecting) share a few connections instead of opening one each, so the
 * calls count for little against the app's `maxConnections`. `mark` is called with the server
 * end of each connection (as `InjectRequest.mark`). `destroy()` it when done.
 * @example const agent = injectAgent(server); await inject(server, { path: '/ws', agent });
 */
export function injectAgent(server: Server, maxSockets = 32, mark?: (serverEnd: Duplex) => void): Agent {
  const agent = new http.Agent({ keepAlive: true, maxSockets, maxFreeSockets: 8 });
  agent.createConnection = () => {
    const [client, serverEnd] = memoryConnection();
    mark?.(serverEnd);
    server.emit('connection', serverEnd);
    return client as Socket;
  };
  return agent;
}

/**
 * Sends `request` to `server` (listening or not) and collects the whole answer.
 * @example const res = await inject(server, { method: 'POST', path: '/cleanup', headers: { 'content-type': 'application/json' }, body: '{}' })
 */
export function inject(server: Server, request: InjectRequest): Promise<InjectResponse> {
  let own: Duplex | undefined;
  if (request.agent === undefined) {
    const [client, serverEnd] = memoryConnection();
    request.mark?.(serverEnd);
    server.emit('connection', serverEnd);
    own = client;
  }
  let timer: NodeJS.Timeout | undefined;
  let cut = false;
  return new Promise<InjectResponse>((resolve, reject) => {
    if (request.limitMs !== undefined)
      timer = setTimeout(() => {
        cut = true;
        resolve({ status: 0, headers: {}, rawHeaders: [], body: Buffer.alloc(0), cut: true });
        own?.destroy();
      }, request.limitMs);
    const req = http.request(
      {
        ...(own === undefined ? { agent: request.agent } : { createConnection: () => own as never }),
        method: request.method ?? 'GET',
        path: request.path,
        headers: { ...request.headers } as Record<string, string | number | string[]>,
        ...(request.signal === undefined ? {} : { signal: request.signal }),
      },
      (res: IncomingMessage) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            rawHeaders: res.rawHeaders,
            body: Buffer.concat(chunks),
            cut: false,
          }),
        );
        res.on('error', reject);
      },
    );
    // After a cut the destroyed connection errors the request: the answer is already given.
    req.on('error', (error) => (cut ? undefined : reject(error)));
    req.end(request.body);
  }).finally(() => {
    clearTimeout(timer);
    own?.destroy();
  });
}
