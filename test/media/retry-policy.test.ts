/**
 * The retry policy as a table (retry-policy.ts): attempt number, what failed, Retry-After, the
 * operation's safety, the token refresh left and the budget, to the decision. Then the one loop.
 */
import { describe, expect, it } from 'vitest';
import {
  type AttemptFailure,
  decideRetry,
  type RetryBudget,
  type RetryDecision,
  retryLoop,
} from '../../src/media/retry-policy.js';

const error = new Error('the attempt failed');
const budget = (retries: number, random = 0.5): RetryBudget => ({
  retries,
  retryDelayMs: 200,
  maxRetryDelayMs: 5000,
  random: () => random,
});

const network = (transient: boolean, mayHaveReached: boolean): AttemptFailure => ({
  kind: 'exchange',
  transient,
  mayHaveReached,
});
const refused = (status: number, tokenError = false): AttemptFailure => ({ kind: 'refused', status, tokenError });
const malformed: AttemptFailure = { kind: 'malformed' };
const giveUp: RetryDecision<Error> = { action: 'give-up', error };
const retryIn = (delayMs: number): RetryDecision<Error> => ({ action: 'retry', delayMs });
const refresh: RetryDecision<Error> = { action: 'refresh' };

interface Row {
  case: string;
  retry: number;
  failure: AttemptFailure;
  retryAfterSeconds?: number;
  safe?: boolean;
  canRefresh?: boolean;
  budget: RetryBudget;
  expected: RetryDecision<Error>;
}

const rows: Row[] = [
  // Network failures: a safe operation is retried; a changing one only when it never connected.
  {
    case: 'refused connection, changing op',
    retry: 0,
    failure: network(true, false),
    safe: false,
    budget: budget(2),
    expected: retryIn(100),
  },
  {
    case: 'reset connection, changing op',
    retry: 0,
    failure: network(true, true),
    safe: false,
    budget: budget(2),
    expected: giveUp,
  },
  { case: 'timeout, safe op', retry: 0, failure: network(true, true), budget: budget(2), expected: retryIn(100) },
  { case: 'forged answer, safe op', retry: 0, failure: network(false, true), budget: budget(2), expected: giveUp },
  { case: 'abort before connecting', retry: 0, failure: network(false, false), budget: budget(2), expected: giveUp },
  // Statuses: 429 and 5xx for safe operations only; the rest is thrown.
  { case: '503, safe op', retry: 0, failure: refused(503), budget: budget(2), expected: retryIn(100) },
  { case: '500, changing op', retry: 0, failure: refused(500), safe: false, budget: budget(2), expected: giveUp },
  { case: '429, changing op', retry: 0, failure: refused(429), safe: false, budget: budget(2), expected: giveUp },
  { case: '400, safe op', retry: 0, failure: refused(400), budget: budget(2), expected: giveUp },
  { case: '200 with err_no, safe op', retry: 0, failure: refused(200), budget: budget(2), expected: giveUp },
  { case: '2xx without a JSON object', retry: 0, failure: malformed, budget: budget(2), expected: giveUp },
  // The budget: retries made against retries allowed.
  { case: 'last retry left', retry: 1, failure: refused(503), budget: budget(2), expected: retryIn(200) },
  { case: 'budget spent', retry: 2, failure: refused(503), budget: budget(2), expected: giveUp },
  { case: 'no retries at all', retry: 0, failure: network(true, false), budget: budget(0), expected: giveUp },
  // Back-off: full jitter under retryDelayMs·2^retry, capped by maxRetryDelayMs.
  { case: 'jitter near the top', retry: 3, failure: refused(502), budget: budget(5, 0.999), expected: retryIn(1598) },
  { case: 'jitter of 0', retry: 3, failure: refused(502), budget: budget(5, 0), expected: retryIn(0) },
  { case: 'ceiling capped', retry: 10, failure: refused(502), budget: budget(20), expected: retryIn(2500) },
  // Retry-After: a floor under the jitter, capped by maxRetryDelayMs too.
  {
    case: 'Retry-After 2 s',
    retry: 0,
    failure: refused(429),
    retryAfterSeconds: 2,
    budget: budget(2),
    expected: retryIn(2000),
  },
  {
    case: 'Retry-After under the jitter',
    retry: 0,
    failure: refused(429),
    retryAfterSeconds: 0,
    budget: budget(2),
    expected: retryIn(100),
  },
  {
    case: 'Retry-After 60 s, capped',
    retry: 0,
    failure: refused(503),
    retryAfterSeconds: 60,
    budget: budget(2),
    expected: retryIn(5000),
  },
  {
    case: 'Retry-After of a changing op',
    retry: 0,
    failure: refused(429),
    retryAfterSeconds: 1,
    safe: false,
    budget: budget(2),
    expected: giveUp,
  },
  // Token errors: one refresh, whatever the operation and the budget left.
  {
    case: 'token refused',
    retry: 0,
    failure: refused(401, true),
    canRefresh: true,
    budget: budget(2),
    expected: refresh,
  },
  {
    case: 'token refused, changing op, budget spent',
    retry: 2,
    failure: refused(200, true),
    safe: false,
    canRefresh: true,
    budget: budget(2),
    expected: refresh,
  },
  {
    case: 'token refused again',
    retry: 0,
    failure: refused(401, true),
    canRefresh: false,
    budget: budget(2),
    expected: giveUp,
  },
  {
    case: 'token err_no with a 500, refresh spent',
    retry: 0,
    failure: refused(500, true),
    canRefresh: false,
    budget: budget(2),
    expected: retryIn(100),
  },
  {
    case: 'network failure, refresh left',
    retry: 0,
    failure: network(true, true),
    safe: false,
    canRefresh: true,
    budget: budget(2),
    expected: giveUp,
  },
];

describe('decideRetry', () => {
  it.each(rows)('$case', (row) => {
    const decision = decideRetry(
      {
        retry: row.retry,
        failure: row.failure,
        error,
        retryAfterSeconds: row.retryAfterSeconds,
        safe: row.safe ?? true,
        canRefresh: row.canRefresh ?? false,
      },
      row.budget,
    );
    expect(decision).toEqual(row.expected);
    if (decision.action === 'give-up') expect(decision.error).toBe(error);
  });

  it('draws jitter only when it retries', () => {
    let draws = 0;
    const counted = { ...budget(1), random: () => (draws++, 0.5) };
    const input = { error, retryAfterSeconds: undefined, safe: true, canRefresh: false };
    decideRetry({ ...input, retry: 0, failure: refused(400) }, counted);
    decideRetry({ ...input, retry: 1, failure: refused(503) }, counted);
    expect(draws).toBe(0);
    decideRetry({ ...input, retry: 0, failure: refused(503) }, counted);
    expect(draws).toBe(1);
  });
});

describe('retryLoop', () => {
  it('counts retries, not resends, and waits only before a retry', async () => {
    const seen: number[] = [];
    const waits: number[] = [];
    const passes = [
      { action: 'resend' },
      { action: 'retry', delayMs: 30 },
      { action: 'retry', delayMs: 60 },
      { action: 'done', value: 'body' },
    ] as const;
    const body = await retryLoop(
      async (retry) => {
        seen.push(retry);
        return passes[seen.length - 1]!;
      },
      async (ms) => {
        waits.push(ms);
      },
    );
    expect(body).toBe('body');
    expect(seen).toEqual([0, 0, 1, 2]);
    expect(waits).toEqual([30, 60]);
  });

  it('ends on what the attempt or the wait throws', async () => {
    const thrown = new Error('give up');
    await expect(
      retryLoop(
        () => Promise.reject(thrown),
        async () => undefined,
      ),
    ).rejects.toBe(thrown);
    const aborted = new Error('aborted');
    let attempts = 0;
    const looping = retryLoop(
      async () => (attempts++, { action: 'retry', delayMs: 1 }),
      () => Promise.reject(aborted),
    );
    await expect(looping).rejects.toBe(aborted);
    expect(attempts).toBe(1);
  });
});
