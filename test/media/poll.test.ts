/**
 * `poll()` (poll.ts), the one loop of the waiting workflows: growing intervals, the deadline,
 * a round that ends it, and an abort, on a fake clock.
 */
import { describe, expect, it } from 'vitest';
import { MediaError } from '../../src/media/index.js';
import { poll, type WaitOptions } from '../../src/media/poll.js';
import { FakeClock } from './media-server.js';

/** A poll whose round answers `answer` on the round numbered `final` (1-based), counting rounds. */
function run(clock: FakeClock, options: WaitOptions, final: number) {
  let rounds = 0;
  const timeouts: number[] = [];
  const done = poll({
    clock,
    operation: 'get_work_flow_exection',
    options,
    round: async () => (++rounds === final ? `final after ${rounds}` : undefined),
    timedOut: (timeoutMs) => {
      timeouts.push(timeoutMs);
      return `timed out after ${rounds}`;
    },
  });
  return { done, rounds: () => rounds, timeouts };
}

describe('poll', () => {
  it('returns the first final answer without waiting', async () => {
    const clock = new FakeClock();
    const { done } = run(clock, {}, 1);
    expect(await done).toBe('final after 1');
    expect(clock.sleeps).toEqual([]);
  });

  it('waits 1.5 times longer each round, up to maxPollIntervalMs', async () => {
    const clock = new FakeClock();
    const { done } = run(clock, { pollIntervalMs: 100, maxPollIntervalMs: 200 }, 5);
    expect(await done).toBe('final after 5');
    expect(clock.sleeps).toEqual([100, 150, 200, 200]);
  });

  it('starts at 1 s and grows to 10 s by default', async () => {
    const clock = new FakeClock();
    const { done } = run(clock, {}, 9);
    await done;
    expect(clock.sleeps).toEqual([1000, 1500, 2250, 3375, 5062.5, 7593.75, 10_000, 10_000]);
  });

  it('never sleeps past the deadline, and asks once more before timing out', async () => {
    const clock = new FakeClock();
    const { done, timeouts } = run(clock, { pollIntervalMs: 100, timeoutMs: 300 }, 99);
    expect(await done).toBe('timed out after 4');
    expect(clock.sleeps).toEqual([100, 150, 50]);
    expect(timeouts).toEqual([300]);
  });

  it('times out after 10 minutes by default', async () => {
    const clock = new FakeClock();
    let rounds = 0;
    const result = await poll({
      clock,
      operation: 'get_upload_job_info',
      options: {},
      round: async () => {
        rounds++;
        clock.time += 600_000;
        return undefined;
      },
      timedOut: (timeoutMs) => timeoutMs,
    });
    expect(result).toBe(600_000);
    expect(rounds).toBe(1);
  });

  it('ends on what a round throws, with no further round', async () => {
    const clock = new FakeClock();
    const failed = new Error('run_status 9');
    let rounds = 0;
    const done = poll({
      clock,
      operation: 'get_work_flow_exection',
      options: {},
      round: async () => {
        if (++rounds === 2) throw failed;
        return undefined;
      },
      timedOut: () => 'late',
    });
    await expect(done).rejects.toBe(failed);
    expect(rounds).toBe(2);
  });

  it('turns an abort of its wait into MEDIA_ABORTED naming the operation', async () => {
    const controller = new AbortController();
    // A wait that only the signal ends, aborted once it has begun.
    const waiting = {
      now: () => 0,
      sleep: (_: number, signal?: AbortSignal) =>
        new Promise<void>((_resolve, reject) => {
          signal?.addEventListener('abort', () => reject(signal.reason));
          controller.abort(new Error('function timed out'));
        }),
    };
    const done = poll({
      clock: waiting,
      operation: 'get_upload_job_info',
      options: { signal: controller.signal },
      round: async () => undefined,
      timedOut: () => 'late',
    });
    const error = await done.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MediaError);
    expect((error as MediaError).code).toBe('MEDIA_ABORTED');
    expect((error as MediaError).message).toContain('get_upload_job_info');
    expect((error as MediaError).message).toContain('function timed out');
  });
});
