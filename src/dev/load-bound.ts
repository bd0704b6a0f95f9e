/**
 * The bound on loading one function in `cloudfn dev` (the `loadTimeout` option): a module whose
 * top-level await never settles (a `redis.connect()` or a `fetch` at top level against a host
 * that does not answer) must fail that one function, named with its file, instead of holding
 * the reload, and with it every request, forever. The import left pending is abandoned: Node
 * cannot cancel it, and the next save of the file loads a fresh copy.
 */
import { createDevError } from './errors.js';

/**
 * `loading`, or, when it has not settled within `ms`, the error `CLOUDFN_DEV_LOAD_TIMEOUT`
 * naming `where`.
 * @example const mod = await withinLoadBound(importEsm(code, dir, 'hello'), { ms: 10_000, where: 'hello.ts' })
 */
export async function withinLoadBound<T>(loading: Promise<T>, bound: { ms: number; where: string }): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(
      () => reject(createDevError('CLOUDFN_DEV_LOAD_TIMEOUT', bound.where, formatSeconds(bound.ms))),
      bound.ms,
    );
  });
  try {
    return await Promise.race([loading, expired]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Resolves once `waiting` settles or `ms` have passed, whichever comes first; never rejects.
 * @example await atMost(reloader.ready('hello'), 10_000)
 */
export async function atMost(waiting: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    waiting.catch(() => undefined),
    new Promise<void>((resolve) => {
      timer = setTimeout(resolve, ms);
    }),
  ]);
  clearTimeout(timer);
}

/** `10000` as `10 s`, `1500` as `1.5 s`. */
function formatSeconds(ms: number): string {
  return `${Math.round(ms / 100) / 10} s`;
}
