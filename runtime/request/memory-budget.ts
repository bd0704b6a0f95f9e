/**
 * The memory budget of one app: the bytes of request bodies held and of answers written but
 * not yet sent, across all requests. A request that would take it over the limit is refused
 * 503 `CLOUDFN_OVERLOADED` with `Retry-After` before its body is read or its function runs
 * (handle.ts); an answer still in node's buffers when it ends counts until it is sent or its
 * connection closes (response.ts), so clients that never read hold the budget, not the heap.
 */
import type { ServerResponse } from 'node:http';

/** The bytes held across requests, against `limit` (the `memoryBudget` option; 0 is no limit). */
export class MemoryBudget {
  readonly limit: number;
  #held = 0;
  #refused = 0;

  constructor(limit: number) {
    this.limit = limit;
  }

  /** Bytes of bodies and unsent answers held now. */
  get held(): number {
    return this.#held;
  }

  /** Requests refused because the budget was spent. */
  get refused(): number {
    return this.#refused;
  }

  /**
   * Takes `bytes` for a request about to read its body (0 for one without a body). False, and
   * nothing taken, when that would pass the limit while something is held: one request larger
   * than the whole budget still runs alone, so no request is refused forever.
   * @example if (!budget.take(length)) refuse(); else x.heldBytes = length;
   */
  take(bytes: number): boolean {
    if (this.limit > 0 && this.#held > 0 && this.#held + bytes > this.limit) {
      this.#refused++;
      return false;
    }
    this.#held += bytes;
    return true;
  }

  /** Gives back what `take` took. */
  give(bytes: number): void {
    this.#held -= bytes;
  }

  /**
   * Counts the part of an ended answer still waiting in node's buffers until the response
   * closes (sent) or its connection does, whichever comes first. Only answers that did not
   * leave at once pay this; one queued behind another (no socket yet) is not counted, since
   * node might never report its end.
   */
  holdAnswer(res: ServerResponse, bytes: number): void {
    const socket = res.socket;
    if (socket == null) return;
    this.#held += bytes;
    // Once only: node 26 emits the response's 'close' from inside the socket's, whose emit has
    // already copied its listeners, so the `off` below cannot stop the second call there.
    let held = true;
    const release = (): void => {
      if (!held) return;
      held = false;
      res.off('close', release);
      socket.off('close', release);
      this.#held -= bytes;
    };
    res.once('close', release);
    socket.once('close', release);
  }
}
