/**
 * The request channel between the workers of `cloudfn start --workers` and their primary, for
 * the session hub (session-hub.ts, worker-directory.ts): either side sends a request by name
 * and gets one answer, or nothing within its deadline; the other side's handlers answer. One
 * message type over the cluster's IPC channel, shared with the other messages there (timer
 * locks, metrics), which it ignores. Buffers travel as base64: the channel is JSON.
 */

/** The `type` of every message of the hub. */
export const HUB_MESSAGE = 'cloudfn:ws-hub';

/**
 * How long a worker waits for the primary to answer a push: the primary's own wait for the
 * owner (OWNER_DEADLINE_MS) and the two hops around it. A push not answered by then is failed.
 */
export const PUSH_DEADLINE_MS = 3000;

/** How long the primary waits for the worker that owns a session to deliver to it. */
export const OWNER_DEADLINE_MS = 2000;

/**
 * How long before OWNER_DEADLINE_MS an owner stops delivering: its answer needs time to come
 * back, and a delivery whose answer arrives after the deadline would be reported failed.
 */
export const OWNER_ANSWER_MARGIN_MS = 250;

/** How long a worker waits for the primary's answer to a question (who owns, which members). */
export const QUESTION_DEADLINE_MS = 3000;

/** A request: `op` with its arguments; `rid` -1 expects no answer. */
interface HubRequest {
  type: typeof HUB_MESSAGE;
  rid: number;
  op: string;
  args: unknown;
}

/** The answer to request `rid`: its value, or the handler's error message. */
interface HubAnswer {
  type: typeof HUB_MESSAGE;
  rid: number;
  value?: unknown;
  error?: string;
}

/** Answers one kind of request. */
export type HubHandler = (args: never) => unknown;

/** Whether a message of the IPC channel is the hub's. */
export function isHubMessage(message: unknown): message is HubRequest | HubAnswer {
  return typeof message === 'object' && message !== null && (message as { type?: unknown }).type === HUB_MESSAGE;
}

interface Pending {
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
  timer: NodeJS.Timeout;
}

/** One end of the channel: a worker's to its primary, or the primary's to one worker. */
export class HubChannel {
  readonly #send: (message: HubRequest | HubAnswer) => boolean;
  readonly #handlers: Readonly<Record<string, HubHandler>>;
  readonly #pending = new Map<number, Pending>();
  /** The other side's name in messages: `the primary`, `worker 2`. */
  readonly #peer: string;
  #nextId = 0;

  /**
   * @param send writes a message to the other side; false when its channel is closed.
   * @param handlers answer the other side's requests by name.
   */
  constructor(
    peer: string,
    send: (message: HubRequest | HubAnswer) => boolean,
    handlers: Readonly<Record<string, HubHandler>>,
  ) {
    this.#peer = peer;
    this.#send = send;
    this.#handlers = handlers;
  }

  /**
   * Asks the other side; rejects when it does not answer within `deadlineMs`, its channel is
   * closed, or its handler failed.
   * @example const failed = await channel.request<string[]>('push', { ids, data }, PUSH_DEADLINE_MS)
   */
  request<T>(op: string, args: unknown, deadlineMs: number): Promise<T> {
    const rid = this.#nextId++;
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#pending.delete(rid);
        reject(new Error(`${this.#peer} did not answer ${op} within ${deadlineMs} ms`));
      }, deadlineMs);
      timer.unref();
      this.#pending.set(rid, { resolve: resolve as (value: unknown) => void, reject, timer });
      if (!this.#send({ type: HUB_MESSAGE, rid, op, args })) this.#settle(rid, { error: `${this.#peer} is gone` });
    });
  }

  /** Tells the other side, expecting no answer; false when its channel is closed. */
  notify(op: string, args: unknown): boolean {
    return this.#send({ type: HUB_MESSAGE, rid: -1, op, args });
  }

  /** Takes a message of the hub from the other side: answers a request, or settles an answer. */
  receive(message: HubRequest | HubAnswer): void {
    if (!('op' in message)) return this.#settle(message.rid, message);
    const { rid, op, args } = message;
    const handler = this.#handlers[op];
    const answered = (answer: { value?: unknown; error?: string }): void => {
      if (rid >= 0) this.#send({ type: HUB_MESSAGE, rid, ...answer });
    };
    if (handler === undefined) return answered({ error: `no handler for ${op}` });
    // A handler's throw is answered as an error, never left to reject unheard.
    Promise.resolve()
      .then(() => handler(args as never))
      .then(
        (value) => answered({ value: value ?? null }),
        (error: unknown) => answered({ error: error instanceof Error ? error.message : String(error) }),
      );
  }

  /** Rejects every request waiting for an answer: the other side is gone. */
  failAll(reason: string): void {
    for (const rid of [...this.#pending.keys()]) this.#settle(rid, { error: reason });
  }

  #settle(rid: number, answer: { value?: unknown; error?: string }): void {
    const pending = this.#pending.get(rid);
    if (pending === undefined) return;
    this.#pending.delete(rid);
    clearTimeout(pending.timer);
    if (answer.error !== undefined) pending.reject(new Error(answer.error));
    else pending.resolve(answer.value);
  }
}
