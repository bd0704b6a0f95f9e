/**
 * The answer to a connection error that never reached the app (serve/http-server.ts): a JSON
 * error with a fresh logid and a warning line, written once the answers already on the socket
 * are finished, then a lingering close; and a CONNECT, answered 405 through the pipeline.
 * Imported on the first of either: a bundle's start-up does not read it (issue 44).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { App } from '../app.js';
import type { CloudfnError } from '../errors.js';
import { generateLogid } from '../log/logid.js';
import { lingerClose } from '../request/linger.js';

const http = process.getBuiltinModule('node:http');
import { errorBody } from '../request/error-body.js';

/** The socket's response in flight, and its parser's request (node's own fields). */
export type HttpSocket = Socket & {
  _httpMessage?: ServerResponse | null;
  parser?: { incoming?: IncomingMessage | null } | null;
};

/** Runs `then` once no response is in flight on the socket (node queues pipelined ones). */
export function whenIdle(socket: HttpSocket, then: () => void): void {
  const res = socket._httpMessage;
  if (socket.destroyed) return;
  if (res == null) return then();
  // node's own 'finish' listener ran first and attached the next queued response, if any.
  res.once('finish', () => whenIdle(socket, then));
}

/** Writes the JSON error on the socket, closes it lingering, and logs the warning line. */
export function answerClientError(app: App, failure: CloudfnError, socket: Socket): void {
  if (!socket.writable) {
    // The last response closed the connection (its own lingering close has begun): no second
    // answer. Destroying here would reset the connection, and a reset makes the client drop the
    // answers it has not read yet (found by test/runtime/request/response-pipelining.test.ts).
    lingerClose(socket);
    return;
  }
  const logid = generateLogid();
  const body = errorBody(failure.code, failure.message, logid);
  const reason =
    failure.status === 431
      ? 'Request Header Fields Too Large'
      : failure.status === 408
        ? 'Request Timeout'
        : failure.status === 413
          ? 'Payload Too Large'
          : 'Bad Request';
  socket.write(
    `HTTP/1.1 ${failure.status} ${reason}\r\ncontent-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\n` +
      `${app.options.logidHeader}: ${logid}\r\nconnection: close\r\n\r\n${body}`,
  );
  lingerClose(socket);
  app.logger.line('warn', logid, '', `${failure.status} before routing: ${failure.message}`, {
    status: failure.status,
    code: failure.code,
  });
}

/** CONNECT: answered 405 through the pipeline (logid, log line), then the tunnel is closed. */
export function onConnect(app: App, req: IncomingMessage, socket: Socket): void {
  const res = new http.ServerResponse(req);
  res.shouldKeepAlive = false;
  res.assignSocket(socket);
  res.once('finish', () => {
    res.detachSocket(socket);
    lingerClose(socket);
  });
  app.handle(req, res);
}
