/**
 * Event-driven waiting for tests: poll a condition until it holds, with a generous deadline that
 * only bounds a hang (a slow machine passes, a broken one fails with what it waited for).
 */

/**
 * Resolves with the first value `check` returns other than undefined; throws after `timeoutMs`.
 * @example const port = await until(() => /port (\d+)/.exec(output())?.[1], 20_000, 'the port line')
 */
export async function until<T>(
  check: () => T | undefined | Promise<T | undefined>,
  timeoutMs: number,
  what: string | (() => string),
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline)
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${typeof what === 'string' ? what : what()}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
