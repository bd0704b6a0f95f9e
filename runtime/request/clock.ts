/**
 * The request path's clock: milliseconds from `process.hrtime()`, monotonic like
 * `performance.now()` but from an arbitrary origin, so only differences mean something. The
 * first read of the global `performance` loads `perf_hooks` and eight internal modules with it:
 * 0.6-0.7 ms of the first request of every start (node 20 and 24), which a bare node:http
 * server never pays. `process.hrtime` is loaded with node, and a read costs the same as
 * `performance.now()` (about 70 ns either way).
 */

/**
 * Milliseconds on a monotonic clock with an arbitrary origin.
 * @example const started = monotonicMs(); … const ms = monotonicMs() - started
 */
export function monotonicMs(): number {
  const time = process.hrtime();
  return time[0] * 1e3 + time[1] / 1e6;
}
