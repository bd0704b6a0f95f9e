/** A unit of background work; it should stop soon after `signal` aborts. */
export type Task = (signal: AbortSignal) => Promise<void>;

/**
 * Runs background tasks (uploads, transcodes) at most `concurrency` at a time, in the order
 * they were pushed. `close()` aborts running tasks and drops queued ones, so the emulator
 * shuts down promptly; unfinished jobs are picked up again from the state on the next start.
 * @example
 * const queue = new JobQueue(2, (error) => console.error(error));
 * queue.push(async (signal) => { await work(signal); });
 * await queue.idle();
 */
export class JobQueue {
  readonly #concurrency: number;
  readonly #onError: (error: unknown) => void;
  readonly #pending: Task[] = [];
  readonly #running = new Set<Promise<void>>();
  readonly #controller = new AbortController();
  #idleWaiters: (() => void)[] = [];

  constructor(concurrency: number, onError: (error: unknown) => void) {
    this.#concurrency = Math.max(1, concurrency);
    this.#onError = onError;
  }

  /** Aborted when the queue closes; tasks pass it to their downloads and child processes. */
  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  /** Queues a task; it starts as soon as a slot is free. Ignored once the queue is closed. */
  push(task: Task): void {
    if (this.#controller.signal.aborted) return;
    this.#pending.push(task);
    this.#pump();
  }

  /** Resolves when nothing is running or queued. */
  idle(): Promise<void> {
    if (this.#pending.length === 0 && this.#running.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idleWaiters.push(resolve));
  }

  /** Aborts running tasks, drops queued ones and waits for the running ones to settle. */
  async close(): Promise<void> {
    this.#pending.length = 0;
    this.#controller.abort(new Error('the platform emulator is closing'));
    await Promise.allSettled([...this.#running]);
  }

  #pump(): void {
    while (this.#running.size < this.#concurrency && this.#pending.length > 0) {
      const task = this.#pending.shift()!;
      const run: Promise<void> = task(this.#controller.signal)
        .catch((error: unknown) => {
          if (!this.#controller.signal.aborted) this.#onError(error);
        })
        .finally(() => {
          this.#running.delete(run);
          this.#pump();
          if (this.#pending.length === 0 && this.#running.size === 0) {
            const waiters = this.#idleWaiters;
            this.#idleWaiters = [];
            for (const resolve of waiters) resolve();
          }
        });
      this.#running.add(run);
    }
  }
}

/** Waits `ms` milliseconds, or rejects with the signal's reason when it aborts first (shared with the media client). */
export { abortableSleep as sleep } from '../../../media/clock.js';
