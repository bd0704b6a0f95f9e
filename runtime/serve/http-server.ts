/**
 * The node:http server around an app: protocol limits (431, 408, 400 with the logid), the
 * hooks answered before routing (the health path, the dev console), and listening.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { App } from '../app.js';
import { createError } from '../errors.js';
import { generateLogid } from '../log/logid.js';
import { errorBody } from '../request/response.js';
import { healthHook } from './health.js';

/**
 * A hook that sees every request before routing: it answers and returns true, or returns
 * false to let the request through to the functions. Such requests are not logged or counted.
 */
export type BeforeHook = (req: IncomingMessage, res: ServerResponse) => boolean;

/** Options of `createHttpServer`. */
export interface HttpServerOptions {
  /**
   * Hooks run in order before routing, after the health path (when `options.healthPath` is
   * set). @default []
   */
  before?: readonly BeforeHook[];
}

/**
 * Creates the http server of an app, with the app's timeouts and header limit, answering the
 * health path and the `before` hooks ahead of the functions.
 * @example const server = createHttpServer(app); server.listen(8000)
 */
export function createHttpServer(app: App, options: HttpServerOptions = {}): Server {
  const { maxHeaderSize, headersTimeout, requestTimeout, keepAliveTimeout, healthPath } = app.options;
  // node checks both timeouts only every connectionsCheckingInterval (30 s by default), which
  // would let a slow client hold a socket far past headersTimeout.
  const connectionsCheckingInterval = Math.max(50, Math.min(1000, Math.floor(headersTimeout / 2)));
  const hooks = [...(healthPath === undefined ? [] : [healthHook(app, healthPath)]), ...(options.before ?? [])];
  const handle = app.handle;
  const listener =
    hooks.length === 0
      ? handle
      : (req: IncomingMessage, res: ServerResponse): void => {
          for (let i = 0; i < hooks.length; i++) if (hooks[i]!(req, res)) return;
          handle(req, res);
        };
  const server = createServer({ maxHeaderSize, headersTimeout, requestTimeout, keepAliveTimeout, connectionsCheckingInterval }, listener);
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) => onClientError(app, error, socket));
  return server;
}

/** Errors node:http raises before a request reaches the app. */
function onClientError(app: App, error: NodeJS.ErrnoException, socket: Socket): void {
  if (error.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  const failure =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? createError('CLOUDFN_HEADERS_TOO_LARGE', app.options.maxHeaderSize)
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? createError('CLOUDFN_REQUEST_TIMEOUT')
        : createError('CLOUDFN_BAD_REQUEST', error.code ?? error.message);
  const logid = generateLogid();
  const body = errorBody(failure.code, failure.message, logid);
  const reason = failure.status === 431 ? 'Request Header Fields Too Large' : failure.status === 408 ? 'Request Timeout' : 'Bad Request';
  socket.end(
    `HTTP/1.1 ${failure.status} ${reason}\r\ncontent-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\n` +
      `${app.options.logidHeader}: ${logid}\r\nconnection: close\r\n\r\n${body}`,
  );
  app.logger.line('warn', logid, '', `${failure.status} before routing: ${failure.message}`, { status: failure.status, code: failure.code });
}

/** Starts listening; resolves with the bound address (port 0 picks a free port). */
export function listen(server: Server, port: number, host: string): Promise<{ port: number; host: string; url: string }> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      const address = server.address();
      const bound = typeof address === 'object' && address !== null ? address.port : port;
      const shown = host === '0.0.0.0' || host === '::' ? 'localhost' : host.includes(':') ? `[${host}]` : host;
      resolve({ port: bound, host, url: `http://${shown}:${bound}` });
    });
  });
}
