/**
 * The dev console's event stream (`api/events`, server-sent events) as a test reads it: every
 * frame since the stream opened is kept, and a test waits for the first `typecheck` frame that
 * passes its check, as the console page would receive it.
 */
import { until } from './until.js';

/** An open event stream of a dev server. */
export interface TypecheckEvents {
  /** The first `typecheck` frame since the stream opened that `accept` takes; throws after `timeoutMs`. */
  frame(accept: (frame: string) => boolean, timeoutMs: number, what: string): Promise<string>;
  close(): Promise<void>;
}

/**
 * Opens the event stream of the dev server whose console is at `consoleUrl`.
 * @example const events = await typecheckEvents(dev.consoleUrl); await events.frame((f) => f.includes('"state":"done"'), 60_000, 'the first check')
 */
export async function typecheckEvents(consoleUrl: string): Promise<TypecheckEvents> {
  const res = await fetch(`${consoleUrl}api/events`);
  const reader = res.body!.getReader();
  let text = '';
  const pump = (async () => {
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        text += Buffer.from(value).toString();
      }
    } catch {
      // Cancelled by close, or the server went away: the frames read so far stay.
    }
  })();
  return {
    frame: (accept, timeoutMs, what) =>
      until(() => text.split('\n\n').find((f) => f.startsWith('event: typecheck') && accept(f)), timeoutMs, what),
    async close() {
      await reader.cancel().catch(() => {});
      await pump;
    },
  };
}
