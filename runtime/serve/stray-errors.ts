/**
 * The process-wide policy for errors nobody awaited: logged with their stack, and the process
 * keeps serving, since other requests are unaffected.
 */
import type { Logger } from '../log/logger.js';
import { RUNTIME_FUNCTION } from '../log/record.js';

/**
 * Logs every `unhandledRejection` and `uncaughtException` (from a handler's stray promise or
 * timer) and keeps the process serving. Returns a function that removes the handlers.
 * @example const remove = keepServingOnStrayErrors(app)
 */
export function keepServingOnStrayErrors(app: { readonly logger: Logger }): () => void {
  const report = (kind: string) => (error: unknown) => {
    app.logger.line(
      'error',
      '',
      RUNTIME_FUNCTION,
      `${kind} (kept serving): ${error instanceof Error ? error.message : String(error)}`,
      {
        stack: error instanceof Error ? error.stack : undefined,
      },
    );
  };
  const onRejection = report('unhandled rejection');
  const onException = report('uncaught exception');
  process.on('unhandledRejection', onRejection);
  process.on('uncaughtException', onException);
  return () => {
    process.off('unhandledRejection', onRejection);
    process.off('uncaughtException', onException);
  };
}
