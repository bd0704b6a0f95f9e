/**
 * The lingering close of a connection the server gives up on (413, 415, 408, a parse error):
 * the answer is sent, then a FIN, and the socket keeps reading and discarding until the client
 * closes its side or `LINGER_MS` passes. Closing at once while the client is still sending
 * leaves unread bytes in the kernel, which then answers with a reset, and a reset can make the
 * client drop the answer it had not read yet (about 1% of chunked 413s did).
 */
import type { Socket } from 'node:net';

/** How long a closing socket keeps reading what the client still sends. */
export const LINGER_MS = 2000;

const LINGERING = Symbol('cloudfn.lingering');
type Lingering = Socket & { [LINGERING]?: NodeJS.Timeout };

/**
 * Ends `socket` after what was written, then destroys it when the client closes its side or
 * after `LINGER_MS`. Idempotent.
 * @example socket.write(answer); lingerClose(socket);
 */
export function lingerClose(socket: Socket): void {
  const s = socket as Lingering;
  if (s[LINGERING] !== undefined || s.destroyed) return;
  s[LINGERING] = setTimeout(destroy, LINGER_MS, s).unref();
  s.once('end', onEnd);
  s.once('close', onClose);
  s.end();
  // Reading is what drains the kernel's buffer; node may have paused the socket for backpressure.
  s.resume();
}

/** True once `lingerClose` ran on `socket`: nothing more may be written to it. */
export function isLingering(socket: Socket): boolean {
  return (socket as Lingering)[LINGERING] !== undefined;
}

/**
 * Makes node's own close after a `Connection: close` response (its `destroySoon`) a lingering
 * one. Set per socket, only on the connections the runtime closes.
 */
export function lingerOnClose(socket: Socket): void {
  (socket as Socket & { destroySoon: () => void }).destroySoon = destroySoonLingering;
}

/**
 * True once an answer on `socket` said it closes the connection (`lingerOnClose` or
 * `lingerClose` ran): a request node parsed behind it, pipelined in the same write, will never
 * get its answer written, so it must not run.
 */
export function closesAfterAnswer(socket: Socket): boolean {
  return (
    (socket as Socket & { destroySoon: unknown }).destroySoon === destroySoonLingering ||
    (socket as Lingering)[LINGERING] !== undefined
  );
}

function destroySoonLingering(this: Socket): void {
  lingerClose(this);
}

function destroy(socket: Socket): void {
  socket.destroy();
}

function onEnd(this: Socket): void {
  this.destroy();
}

function onClose(this: Lingering): void {
  clearTimeout(this[LINGERING]);
}
