/**
 * The memory budget of one app: the bytes of request bodies held and of answers written but
 * not yet sent, across all requests. The top eighth of it is a reserve that only small requests
 * may use (no body or one of at most `SMALL_BYTES`, to a function that has not left large
 * answers unread), so large bodies and stalled answers never take the last of it. A body that
 * does not fit waits, unread (node stops reading its socket: TCP backpressure), for at most
 * `memoryWaitTimeout`, and bodies are admitted in their order of arrival as the budget frees;
 * only then is it refused 503 `CLOUDFN_OVERLOADED` (handle.ts). An answer still in node's
 * buffers when it ends counts until it is sent or its connection closes (response.ts); when a
 * small request finds the budget spent, answers whose clients have read nothing for
 * `overloadSendTimeout` are cut, oldest first, to make room.
 */
import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Overload } from './overload.ts';
import { monotonicMs } from '../request/clock.js';

/** The largest body a request may have to use the reserve. */
export const SMALL_BYTES = 64 * 1024;

/** Time for the kernel's buffers to take what they will of an answer that was just written. */
const SETTLE_MS = 50;

/** A function whose answer was left unread is treated as large for this long. */
const LARGE_ANSWER_MEMORY_MS = 60_000;

/** A request body waiting for room. */
interface Waiter {
  bytes: number;
  admit: () => void;
  timer: NodeJS.Timeout | undefined;
}

/** An answer held in node's buffers, until it is sent or its connection closes. */
interface HeldAnswer {
  bytes: number;
  socket: Socket;
  /** The bytes pending at `since`: less later means the client read some. */
  pending: number;
  since: number;
  release: () => void;
}

/** What a budget needs besides its limit. */
export interface MemoryBudgetInit {
  /** Time a body waits for room before it is refused (`memoryWaitTimeout`; 0 refuses at once). @default 0 */
  waitTimeout?: number;
  /** Time without progress after which a held answer may be cut to make room (`overloadSendTimeout`). @default 0 (never) */
  stallTimeout?: number;
  /** Counts the actions and reads the pressure. */
  overload?: Overload | undefined;
  /** The open connections, for the pressure (connection-limit.ts). */
  connectionsOpen?: () => number;
}

/** The bytes held across requests, against `limit` (the `memoryBudget` option; 0 is no limit). */
export class MemoryBudget {
  readonly limit: number;
  /** The part of the limit only small requests may use. */
  readonly reserve: number;
  readonly #waitTimeout: number;
  readonly #stallTimeout: number;
  readonly #overload: Overload | undefined;
  readonly #connectionsOpen: () => number;
  readonly #queue: Waiter[] = [];
  readonly #answers = new Set<HeldAnswer>();
  /** Functions that left a large answer unread, and when. */
  readonly #large = new WeakMap<object, number>();
  #held = 0;
  #refused = 0;
  /** Bytes given back since the start, to estimate how soon the budget frees. */
  #given = 0;

  constructor(limit: number, init: MemoryBudgetInit = {}) {
    this.limit = limit;
    this.reserve = Math.floor(limit / 8);
    this.#waitTimeout = init.waitTimeout ?? 0;
    this.#stallTimeout = init.stallTimeout ?? 0;
    this.#overload = init.overload;
    this.#connectionsOpen = init.connectionsOpen ?? (() => 0);
  }

  /** Bytes of bodies and unsent answers held now. */
  get held(): number {
    return this.#held;
  }

  /** Requests refused because the budget was spent (at once, or after waiting). */
  get refused(): number {
    return this.#refused;
  }

  /** Bodies waiting for room now. */
  get waiting(): number {
    return this.#queue.length;
  }

  /** True when a body that does not fit may wait for room. */
  get canWait(): boolean {
    return this.limit > 0 && this.#waitTimeout > 0;
  }

  /**
   * Takes `bytes` for a request about to read its body (0 for one without a body) to function
   * `fn`. A small request may use the reserve, and cuts stalled answers to find room; a large
   * one fits below the reserve, behind the bodies already waiting. One request larger than the
   * whole budget runs when nothing is held, so no request is refused for ever. False, and
   * nothing taken, when it does not fit: the caller waits (`wait`) or refuses (`refuse`).
   * @example if (!budget.take(length, fn)) budget.wait(length, admit, refuse); else x.heldBytes = length;
   */
  take(bytes: number, fn?: object): boolean {
    const limit = this.limit;
    const held = this.#held;
    if (limit === 0 || held + bytes <= limit - this.reserve) {
      if (limit === 0 || bytes === 0 || this.#queue.length === 0) return this.#add(bytes);
    }
    if (held === 0 && this.#queue.length === 0) return this.#add(bytes);
    if (!this.#small(bytes, fn)) return false;
    if (held + bytes <= limit || this.#cutStalled(held + bytes - limit)) return this.#add(bytes);
    return false;
  }

  /** Counts a refusal the caller answers now. */
  refuse(): void {
    this.#refused++;
    this.#overload?.note('memoryRefused', { heldBytes: this.#held, memoryBudget: this.limit });
  }

  /**
   * Queues a body that did not fit: `admit` runs once it is taken, in order of arrival; after
   * `memoryWaitTimeout`, `refused` runs with the seconds a client should wait before retrying.
   * Returns a function that takes it out of the queue (its client went away).
   */
  wait(bytes: number, admit: () => void, refused: (retryAfter: number) => void): () => void {
    const waiter: Waiter = { bytes, admit, timer: undefined };
    const ahead = this.#queue.reduce((sum, w) => sum + w.bytes, 0);
    const given = this.#given;
    const started = monotonicMs();
    waiter.timer = setTimeout(() => {
      this.#remove(waiter);
      this.refuse();
      refused(this.#retryAfter(ahead + bytes, this.#given - given, monotonicMs() - started));
    }, this.#waitTimeout);
    this.#queue.push(waiter);
    this.#overload?.note('bodyWaited', { heldBytes: this.#held, memoryBudget: this.limit, bytes });
    return () => {
      if (this.#remove(waiter)) this.#admitWaiting();
    };
  }

  /** Gives back what `take` took, and admits the bodies waiting that now fit. */
  give(bytes: number): void {
    this.#held -= bytes;
    this.#given += bytes;
    this.#changed();
  }

  /**
   * Counts the part of an ended answer still waiting in node's buffers until the response
   * closes (sent) or its connection does, whichever comes first. Only answers that did not
   * leave at once pay this; one queued behind another (no socket yet) is not counted, since
   * node might never report its end. A large one marks its function as large for a while, so
   * its next requests do not take the reserve.
   */
  holdAnswer(res: ServerResponse, bytes: number, fn?: object): void {
    const socket = res.socket;
    if (socket == null) return;
    this.#held += bytes;
    if (fn !== undefined && bytes > SMALL_BYTES) this.#large.set(fn, monotonicMs());
    // Once only: node 26 emits the response's 'close' from inside the socket's, whose emit has
    // already copied its listeners, so the `off` below cannot stop the second call there.
    let held = true;
    const answer: HeldAnswer = {
      bytes,
      socket,
      pending: socket.writableLength,
      since: monotonicMs(),
      release: () => {
        if (!held) return;
        held = false;
        res.off('close', answer.release);
        socket.off('close', answer.release);
        this.#answers.delete(answer);
        this.give(bytes);
      },
    };
    this.#answers.add(answer);
    // What the kernel still takes in the first moments is not the client reading: the pending
    // bytes are looked at again once its buffers are full.
    setTimeout(() => {
      if (held) answer.pending = socket.writableLength;
    }, SETTLE_MS).unref();
    res.once('close', answer.release);
    socket.once('close', answer.release);
    this.#overload?.update(this.#connectionsOpen(), this.#held);
  }

  #add(bytes: number): true {
    this.#held += bytes;
    if (bytes > 0) this.#overload?.update(this.#connectionsOpen(), this.#held);
    return true;
  }

  /** Small: no body or a small one, to a function that has not left a large answer unread lately. */
  #small(bytes: number, fn: object | undefined): boolean {
    if (bytes > SMALL_BYTES) return false;
    const at = fn === undefined ? undefined : this.#large.get(fn);
    return at === undefined || monotonicMs() - at > LARGE_ANSWER_MEMORY_MS;
  }

  /**
   * Cuts held answers whose clients read nothing for `stallTimeout`, oldest first, until
   * `needed` bytes are free. A client that read since the last look is left, and looked at again
   * from now.
   */
  #cutStalled(needed: number): boolean {
    if (this.#stallTimeout === 0 || this.#answers.size === 0) return false;
    const now = monotonicMs();
    let freed = 0;
    for (const answer of this.#answers) {
      const pending = answer.socket.writableLength;
      if (pending < answer.pending) {
        answer.pending = pending;
        answer.since = now;
        continue;
      }
      if (now - answer.since < this.#stallTimeout) continue;
      freed += answer.bytes;
      this.#overload?.note('stalledCut', { heldBytes: this.#held, memoryBudget: this.limit });
      answer.release();
      answer.socket.destroy();
      if (freed >= needed) return true;
    }
    return false;
  }

  #changed(): void {
    this.#admitWaiting();
    this.#overload?.update(this.#connectionsOpen(), this.#held);
  }

  /** Admits waiting bodies in order while the first fits below the reserve (or nothing is held). */
  #admitWaiting(): void {
    const queue = this.#queue;
    while (queue.length > 0) {
      const first = queue[0]!;
      if (this.#held > 0 && this.#held + first.bytes > this.limit - this.reserve) return;
      queue.shift();
      clearTimeout(first.timer);
      this.#held += first.bytes;
      // Not inside the give() of the request that freed the room: that one is still finishing.
      queueMicrotask(first.admit);
    }
  }

  #remove(waiter: Waiter): boolean {
    const at = this.#queue.indexOf(waiter);
    if (at === -1) return false;
    this.#queue.splice(at, 1);
    clearTimeout(waiter.timer);
    return true;
  }

  /**
   * Seconds until `bytes` (this body and those ahead of it) would likely fit, from the rate the
   * budget freed while the request waited; when nothing freed, the wait it just had.
   */
  #retryAfter(bytes: number, freed: number, waitedMs: number): number {
    const seconds = freed > 0 ? Math.ceil((bytes / freed) * (waitedMs / 1000)) : Math.ceil(this.#waitTimeout / 1000);
    return Math.min(60, Math.max(1, seconds));
  }
}
