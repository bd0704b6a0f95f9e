/**
 * The memory budget's rules on their own: the reserve for small requests, the order in which
 * waiting bodies are admitted, the refusal after the wait with its Retry-After, and a function
 * that left a large answer unread losing the reserve.
 */
import { describe, expect, it } from 'vitest';
import { MemoryBudget, SMALL_BYTES } from '../../../runtime/admission/memory-budget.js';

const MIB = 1024 * 1024;
const tick = (): Promise<void> => new Promise((r) => setImmediate(r));

describe('the memory budget', () => {
  it('keeps its top eighth for small requests, and admits waiting bodies in order as it frees', async () => {
    const budget = new MemoryBudget(8 * MIB, { waitTimeout: 10_000 });
    expect(budget.reserve).toBe(MIB);
    expect(budget.take(5 * MIB)).toBe(true);
    const order: string[] = [];
    // 5 + 3 passes the 7 MiB below the reserve: it waits.
    expect(budget.take(3 * MIB)).toBe(false);
    budget.wait(
      3 * MIB,
      () => order.push('first'),
      () => order.push('refused'),
    );
    // 1 MiB would fit, but it may not pass the body waiting before it.
    expect(budget.take(MIB)).toBe(false);
    budget.wait(
      MIB,
      () => order.push('second'),
      () => order.push('refused'),
    );
    expect(budget.waiting).toBe(2);
    // A small body and a request without one use the reserve.
    expect(budget.take(SMALL_BYTES)).toBe(true);
    expect(budget.take(0)).toBe(true);
    budget.give(SMALL_BYTES);
    budget.give(5 * MIB);
    await tick();
    expect(order).toEqual(['first', 'second']);
    expect(budget.held).toBe(4 * MIB);
    expect(budget.waiting).toBe(0);
  });

  it('refuses a body that waited in vain, with the seconds it would need', async () => {
    const budget = new MemoryBudget(8 * MIB, { waitTimeout: 50 });
    expect(budget.take(7 * MIB)).toBe(true);
    const retry = await new Promise<number>((resolve) => {
      budget.wait(2 * MIB, () => resolve(-1), resolve);
    });
    // Nothing freed while it waited: at least 1 s (its wait, rounded up).
    expect(retry).toBe(1);
    expect(budget.refused).toBe(1);
    expect(budget.waiting).toBe(0);
  });

  it('runs one body larger than the whole budget when nothing else is held', () => {
    const budget = new MemoryBudget(MIB, { waitTimeout: 1000 });
    expect(budget.take(4 * MIB)).toBe(true);
    budget.give(4 * MIB);
    expect(budget.held).toBe(0);
  });

  it('leaves a client that went away out of the queue', async () => {
    const budget = new MemoryBudget(8 * MIB, { waitTimeout: 10_000 });
    expect(budget.take(6 * MIB)).toBe(true);
    const order: string[] = [];
    const leave = budget.wait(
      2 * MIB,
      () => order.push('gone'),
      () => order.push('refused'),
    );
    budget.wait(
      MIB,
      () => order.push('next'),
      () => order.push('refused'),
    );
    leave();
    await tick();
    // The one behind it fits now (6 + 1 <= 7) and is admitted at once.
    expect(order).toEqual(['next']);
  });
});
