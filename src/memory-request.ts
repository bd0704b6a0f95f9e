/**
 * One request sent to an http server of the app over an in-memory connection (no port, node's
 * own parser and writer): what the scheduler's timers and the live-room simulator send as the
 * platform would. The server end may be marked (a timer's trigger) before the server sees it,
 * and a request may be cut after a limit: the connection is destroyed, so the handler's
 * `service.signal` aborts, as the platform's gateway does when it stops waiting.
 */
import { request as httpRequest, type IncomingMessage, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { memoryConnection } from './memory-connection.js';

/** What to send. */
export interface MemoryRequest {
  method: string;
  path: string;
  headers: Record<string, string | number>;
  body: string;
  /** Called with the server end before the server sees it (to mark it). @default none */
  mark?: (serverEnd: Duplex) => void;
  /** Cut the request after this many ms. @default none */
  limitMs?: number;
}

/** What came back. `cut` is true when the limit was reached first (status 0, no body). */
export interface MemoryResponse {
  status: number;
  headers: IncomingMessage['headers'];
  body: string;
  cut: boolean;
}

/**
 * Sends `request` to `server` (listening or not).
 * @example const res = await memoryRequest(server, { method: 'POST', path: '/cleanup', headers, body: '{}' })
 */
export function memoryRequest(server: Server, request: MemoryRequest): Promise<MemoryResponse> {
  const [client, serverEnd] = memoryConnection();
  request.mark?.(serverEnd);
  server.emit('connection', serverEnd);
  let timer: NodeJS.Timeout | undefined;
  return new Promise<MemoryResponse>((resolve, reject) => {
    const cut = (): void => {
      resolve({ status: 0, headers: {}, body: '', cut: true });
      client.destroy();
    };
    if (request.limitMs !== undefined) timer = setTimeout(cut, request.limitMs);
    const req = httpRequest(
      {
        createConnection: () => client as never,
        method: request.method,
        path: request.path,
        headers: { ...request.headers, 'content-length': Buffer.byteLength(request.body) },
      },
      (res: IncomingMessage) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(chunks).toString('utf8'),
            cut: false,
          }),
        );
        res.on('error', reject);
      },
    );
    // After a cut the destroyed connection errors the request: the answer is already given.
    req.on('error', (error) => (timer === undefined || !client.destroyed ? reject(error) : undefined));
    req.end(request.body);
  }).finally(() => {
    clearTimeout(timer);
    client.destroy();
  });
}
