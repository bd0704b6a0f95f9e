/**
 * The callback sender: POSTs signed `upload.finished` and `transcode.finished`
 * notifications to the configured URL, with retries and exponential back-off.
 */
import { randomBytes } from 'node:crypto';
import { newLogId } from '../state/ids.js';
import { sleep } from './job-queue.js';

/** The signature headers of a callback for `appid`'s mini-program, as `signResponse` returns them. */
export type SignBody = (body: string, appid: string) => Record<string, string>;

/** Options of the callback sender. */
export interface CallbackOptions {
  /** Where notifications are POSTed; none means callbacks are off. */
  url: string | undefined;
  /** Retries after the first failed attempt. @default 5 */
  retries: number;
  /** Delay before the first retry; each next retry waits twice as long. @default 1000 */
  backoffMs: number;
  /** Time one attempt may take, in milliseconds. @default 10000 */
  timeoutMs: number;
  /** Whether this notification is delivered twice (the `duplicate-callback` fault). @default never */
  duplicate?: () => boolean;
}

/** The body of every callback (our decision; docs/platform.md lists the events). */
export interface CallbackPayload {
  /**
   * The notification's id, the same in every delivery and retry of it: what a handler
   * de-duplicates by, since notifications are delivered at least once.
   */
  id: string;
  /** `upload.finished` or `transcode.finished`. */
  event: string;
  app_id: string;
  /** Unix seconds. */
  create_time: number;
  data: Record<string, unknown>;
}

/** One delivery attempt, kept so tests and the log can show what happened. */
export interface CallbackAttempt {
  event: string;
  attempt: number;
  status: number | undefined;
  ok: boolean;
  error?: string;
}

/**
 * Sends signed callback notifications with retries and exponential back-off. A callback
 * counts as delivered on any 2xx answer; every failed attempt is logged.
 * @example
 * const sender = new CallbackSender(options, sign, console.log);
 * sender.send({ event: 'upload.finished', app_id, create_time, data });
 */
export class CallbackSender {
  readonly #options: CallbackOptions;
  readonly #sign: SignBody;
  readonly #log: (line: string) => void;
  readonly #controller = new AbortController();
  readonly #inFlight = new Set<Promise<void>>();
  /** Every attempt made, newest last. */
  readonly attempts: CallbackAttempt[] = [];

  constructor(options: CallbackOptions, sign: SignBody, log: (line: string) => void) {
    this.#options = options;
    this.#sign = sign;
    this.#log = log;
  }

  /** Queues a notification (given an id here); does nothing when no callback URL is set. */
  send(event: Omit<CallbackPayload, 'id'>): void {
    const url = this.#options.url;
    if (url === undefined || this.#controller.signal.aborted) return;
    const payload: CallbackPayload = { id: `cb_${randomBytes(12).toString('hex')}`, ...event };
    const times = this.#options.duplicate?.() === true ? 2 : 1;
    for (let i = 0; i < times; i++) {
      const delivery = this.#deliver(url, payload).finally(() => this.#inFlight.delete(delivery));
      this.#inFlight.add(delivery);
    }
  }

  /** Resolves when every queued notification was delivered or gave up. */
  async idle(): Promise<void> {
    while (this.#inFlight.size > 0) await Promise.allSettled([...this.#inFlight]);
  }

  /** Stops retrying; notifications not yet delivered are dropped. */
  async close(): Promise<void> {
    this.#controller.abort(new Error('the platform emulator is closing'));
    await this.idle();
  }

  async #deliver(url: string, payload: CallbackPayload): Promise<void> {
    const body = JSON.stringify(payload);
    const signal = this.#controller.signal;
    for (let attempt = 1; attempt <= this.#options.retries + 1; attempt++) {
      // Each attempt is signed afresh: a new timestamp and nonce, as a retry is a new request.
      const headers = {
        'content-type': 'application/json',
        'x-platform-logid': newLogId(),
        ...this.#sign(body, payload.app_id),
      };
      let status: number | undefined;
      let error: string | undefined;
      try {
        const response = await fetch(url, {
          method: 'POST',
          headers,
          body,
          signal: AbortSignal.any([signal, AbortSignal.timeout(this.#options.timeoutMs)]),
        });
        status = response.status;
        await response.body?.cancel();
      } catch (caught) {
        if (signal.aborted) return;
        error = caught instanceof Error ? caught.message : String(caught);
      }
      const ok = status !== undefined && status >= 200 && status < 300;
      this.attempts.push({ event: payload.event, attempt, status, ok, ...(error === undefined ? {} : { error }) });
      if (ok) return;
      const last = attempt === this.#options.retries + 1;
      const wait = this.#options.backoffMs * 2 ** (attempt - 1);
      this.#log(
        `callback ${payload.event} to ${url} failed (attempt ${attempt}: ${error ?? `HTTP ${String(status)}`})${last ? '; giving up' : `; retrying in ${wait} ms`}`,
      );
      if (last) return;
      try {
        await sleep(wait, signal);
      } catch {
        return;
      }
    }
  }
}
