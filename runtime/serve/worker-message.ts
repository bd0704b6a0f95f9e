/**
 * Messages from the primary of `cloudfn start --workers` to a worker, when the worker may be
 * gone. A worker can exit between the check that its channel is open and the write: the write
 * then fails with EPIPE, and without a callback node reports that as an 'error' event on the
 * worker, which nothing handles and which ends the primary with a stack trace (seen when every
 * worker failed to start at once). Every message the primary sends a worker goes through here.
 */

/** What of a cluster Worker (or a ChildProcess with an IPC channel) sending needs. */
export interface WorkerChannel {
  isConnected(): boolean;
  send(message: unknown, callback: (error: Error | null) => void): unknown;
}

/**
 * Sends `message` when the channel is open. Returns false when it is closed; a write that
 * fails later goes to `undelivered` (default: dropped, the worker is gone) instead of an
 * 'error' event.
 * @example if (!sendToWorker(worker, SHUTDOWN_MESSAGE, stop)) stop()
 */
export function sendToWorker(
  worker: WorkerChannel,
  message: unknown,
  undelivered: (error: Error) => void = ignore,
): boolean {
  if (!worker.isConnected()) return false;
  worker.send(message, (error) => {
    if (error !== null && error !== undefined) undelivered(error);
  });
  return true;
}

function ignore(): void {}
