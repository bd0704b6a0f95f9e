/**
 * The one poll loop of the waiting workflows (workflows.ts): ask, and until the answer is final,
 * wait a growing interval, within a deadline; an abort of the wait is MEDIA_ABORTED.
 */
import { untilAborted } from './abort.js';
import type { MediaClock } from './clock.js';

/** Options of the waiting helpers. */
export interface WaitOptions {
  /** First wait between polls; it grows 1.5× per poll. @default 1000 */
  pollIntervalMs?: number;
  /** Longest wait between polls. @default 10000 */
  maxPollIntervalMs?: number;
  /** Give up after this long. @default 600000 (10 minutes) */
  timeoutMs?: number;
  signal?: AbortSignal;
}

/** What `poll` runs. */
export interface PollSpec<T> {
  clock: MediaClock;
  /** The operation polled, named by MEDIA_ABORTED. */
  operation: string;
  options: WaitOptions;
  /** One round of asking: the final result, or undefined to ask again. It may throw to end the poll. */
  round: () => Promise<T | undefined>;
  /** Called once the deadline has passed without a final result; returns or throws the outcome. */
  timedOut: (timeoutMs: number) => T;
}

/**
 * Runs `round` until it returns a result. Between rounds it waits `pollIntervalMs`, then 1.5×
 * as long each time up to `maxPollIntervalMs`, never past the deadline `timeoutMs` from now;
 * once that has passed after a round, the result is `timedOut`'s.
 * @example const state = await poll({ clock, operation: 'get_work_flow_exection', options, round: ask, timedOut: (ms) => { throw late(ms) } })
 */
export async function poll<T>({ clock, operation, options, round, timedOut }: PollSpec<T>): Promise<T> {
  const timeoutMs = options.timeoutMs ?? 600_000;
  const deadline = clock.now() + timeoutMs;
  let interval = options.pollIntervalMs ?? 1000;
  for (;;) {
    const result = await round();
    if (result !== undefined) return result;
    const left = deadline - clock.now();
    if (left <= 0) return timedOut(timeoutMs);
    const wait = Math.min(interval, left);
    await untilAborted(operation, options.signal, () => clock.sleep(wait, options.signal));
    interval = Math.min(interval * 1.5, options.maxPollIntervalMs ?? 10_000);
  }
}
