/**
 * `cloudfn dev`'s type checking: starts the project's TypeScript in watch mode beside the
 * server, prints each check's errors (file:line:column and a code frame) and its clearing, and
 * publishes them to the console page (`typecheck` event). A project without a tsconfig or
 * without TypeScript gets a one-line note.
 */
import type { Logger } from '../../runtime/log/logger.js';
import { RUNTIME_FUNCTION } from '../../runtime/log/record.js';
import { findTypeScript, formatReport, watchTypes } from '../typecheck/index.js';
import type { EventHub } from './console/event-hub.js';
import type { TypecheckEvent } from './console/protocol.js';

/** Options of `startTypeErrors`. */
export interface TypeErrorsOptions {
  root: string;
  logger: Logger;
  hub: EventHub;
}

/**
 * Starts the checker for a dev server; returns how to stop it.
 * @example const stop = startTypeErrors({ root, logger, hub }); ... await stop();
 */
export function startTypeErrors(options: TypeErrorsOptions): () => Promise<void> {
  const { root, logger, hub } = options;
  const setup = findTypeScript(root);
  if (!setup.ok) {
    logger.line('info', '', RUNTIME_FUNCTION, `type check off: ${setup.reason}`);
    hub.publish('typecheck', { state: 'off', diagnostics: [], reason: setup.reason } satisfies TypecheckEvent, {
      keep: true,
    });
    return async () => undefined;
  }
  let failing = false;
  const watcher = watchTypes({
    root,
    tsconfig: setup.tsconfig,
    typescript: setup.typescript,
    engine: setup.engine,
    tsc: setup.tsc,
    onChecking: () => hub.publish('typecheck', { state: 'checking', diagnostics: [] } satisfies TypecheckEvent),
    onReport: (report) => {
      if (report.diagnostics.length > 0) {
        logger.line('error', '', RUNTIME_FUNCTION, formatReport(report.diagnostics), {
          typeErrors: report.diagnostics.length,
        });
      } else if (failing) {
        logger.line('info', '', RUNTIME_FUNCTION, `type errors fixed: none left (checked in ${report.ms} ms)`);
      }
      failing = report.diagnostics.length > 0;
      hub.publish(
        'typecheck',
        { state: 'done', diagnostics: report.diagnostics, ms: report.ms } satisfies TypecheckEvent,
        { keep: true },
      );
    },
    onExit: (detail) =>
      logger.line(
        'warn',
        '',
        RUNTIME_FUNCTION,
        `the type checker stopped: ${detail}; restart cloudfn dev to check types again`,
      ),
  });
  return () => watcher.close();
}

/** Declared in the console's protocol, which the page imports too. */
export type { TypecheckEvent };
