/**
 * An AbortController where the global one is missing (Node 14, the platform's function
 * service): the media client and `callContainer` cancel their timed-out requests with it.
 * Only what they use: `signal.aborted`, `signal.reason`, `abort`/`addEventListener`.
 */

/** The part of an AbortSignal cloudfn's clients read. */
export interface MinimalSignal {
  readonly aborted: boolean;
  readonly reason: unknown;
  addEventListener(type: 'abort', listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: 'abort', listener: () => void): void;
}

/** A controller of a `MinimalSignal`: `abort(reason)` runs each listener once. */
class FallbackAbortController {
  readonly #listeners = new Set<() => void>();
  #aborted = false;
  #reason: unknown;
  readonly signal: MinimalSignal;
  constructor() {
    const self = this;
    const listeners = this.#listeners;
    this.signal = {
      get aborted() {
        return self.#aborted;
      },
      get reason() {
        return self.#reason;
      },
      addEventListener: (_type, listener) => {
        listeners.add(listener);
      },
      removeEventListener: (_type, listener) => {
        listeners.delete(listener);
      },
    };
  }
  abort(reason?: unknown): void {
    if (this.#aborted) return;
    this.#aborted = true;
    this.#reason = reason ?? new Error('This operation was aborted');
    const listeners = [...this.#listeners];
    this.#listeners.clear();
    for (const listener of listeners) listener();
  }
}

/**
 * A new AbortController: the global one when the runtime has it, the fallback otherwise.
 * @example const controller = createAbortController(); setTimeout(() => controller.abort(), 5000);
 */
export function createAbortController(): AbortController {
  if (typeof globalThis.AbortController === 'function') return new AbortController();
  // The fallback has every member the clients read; `fetch` of fetch-fallback accepts its signal.
  return new FallbackAbortController() as unknown as AbortController;
}
