/**
 * One call of the gateway to a function: an HTTP request written to the app's own node:http
 * server over an in-memory connection (src/memory-connection.ts), so it passes the dev server's
 * hooks, the router, the body parser, limits, the logid and the request line exactly as a call
 * from the platform's gateway would, with no port and no network.
 */
import { Agent, request as httpRequest, type IncomingMessage, type Server } from 'node:http';
import type { Socket } from 'node:net';
import { memoryConnection } from '../../memory-connection.js';

/** A request the gateway sends. */
export interface AppCall {
  method: 'GET' | 'POST';
  /** The path with its query string, e.g. `/websocket_callback`. */
  path: string;
  headers: Record<string, string>;
  body?: Buffer;
}

/** What the function answered. */
export interface AppAnswer {
  status: number;
  headers: IncomingMessage['headers'];
  body: Buffer;
}

/** Sends calls to the functions; the dev server's and the testing gateway's both are one of these. */
export type AppCaller = (call: AppCall) => Promise<AppAnswer>;

/**
 * A keep-alive pool of in-memory connections to `server`: a thousand clients connecting at once
 * share a few connections instead of opening one each, so the calls cost less and count for
 * little against the app's `maxConnections`. `destroy()` it when the gateway closes.
 * @example const agent = memoryAgent(server); const call = serverCaller(server, agent);
 */
export function memoryAgent(server: Server, maxSockets = 32): Agent {
  const agent = new Agent({ keepAlive: true, maxSockets, maxFreeSockets: 8 });
  agent.createConnection = () => {
    const [client, serverEnd] = memoryConnection();
    server.emit('connection', serverEnd);
    return client as Socket;
  };
  return agent;
}

/**
 * A caller writing each call to `server` (listening or not): through `agent`'s pooled in-memory
 * connections, or on a connection of its own per call without one.
 * @example const call = serverCaller(devServer.server, memoryAgent(devServer.server)); await call({ method: 'GET', path: '/ws', headers })
 */
export function serverCaller(server: Server, agent?: Agent): AppCaller {
  return (call) => {
    const headers: Record<string, string | number> = { host: 'cloudfn.gateway', ...call.headers };
    if (call.body !== undefined) headers['content-length'] = call.body.length;
    let own: ReturnType<typeof memoryConnection>[0] | undefined;
    if (agent === undefined) {
      const [client, serverEnd] = memoryConnection();
      server.emit('connection', serverEnd);
      own = client;
    }
    return new Promise<AppAnswer>((resolve, reject) => {
      const req = httpRequest(
        {
          ...(own === undefined ? { agent } : { createConnection: () => own as never }),
          method: call.method,
          path: call.path,
          headers,
        },
        (res: IncomingMessage) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () =>
            resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
          );
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(call.body);
    }).finally(() => own?.destroy());
  };
}
