/**
 * The answer to a connection error that never reached the app (serve/http-server.ts): a JSON
 * error with a fresh logid and a warning line, written once the answers already on the socket
 * are finished, then a lingering close. Imported on the first such error: a bundle's start-up
 * does not read it (issue 44).
 */
import type { Socket } from 'node:net';
import type { App } from '../app.js';
import type { CloudfnError } from '../errors.js';
import { generateLogid } from '../log/logid.js';
import { lingerClose } from '../request/linger.js';
import { errorBody } from '../request/error-body.js';
import type { HttpSocket } from './http-server.js';

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
