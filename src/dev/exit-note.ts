/**
 * Saying why a dev server's process ends, from inside it: a function (or a library it calls)
 * that runs `process.exit(3)` ends node at once, so the `exit` event is the last word. It runs
 * in the caller's async context, so the request that called it is known (the request context
 * the console capture enters), and its stack names the line. The dev server logs that line; a
 * supervised one (dev-process.ts, the parent of `cloudfn dev`) also writes the reason to the
 * file its parent named, which the parent reads to decide to start it again, and to say why.
 */
import { writeFileSync } from 'node:fs';
import { relative } from 'node:path';
import type { Logger } from '../../runtime/log/logger.js';
import { requestContext } from '../../runtime/log/console-capture.js';
import { RUNTIME_FUNCTION } from '../../runtime/log/record.js';

/** The variable naming the file a supervised dev server writes its exit note to. */
export const EXIT_NOTE_VAR = 'CLOUDFN_DEV_EXIT_NOTE';

/** The variable giving a restarted dev server the reason its predecessor ended, logged at start. */
export const RESTARTED_VAR = 'CLOUDFN_DEV_RESTARTED';

/** The IPC message a supervised dev server sends once it serves: `{ type, port }`. */
export const DEV_READY = 'cloudfn-dev-ready';

/** What the process wrote as it ended. */
export type ExitNote =
  /** It was asked to stop (a signal, its parent gone, `close()`). */
  | { readonly by: 'stop'; readonly code: number }
  /** It ended on its own: `process.exit` from code it runs, or node's own exit on an error. */
  | {
      readonly by: 'exit';
      readonly code: number;
      /** The function whose request was running, when one was. */
      readonly function?: string;
      /** The first line of the project's code on the stack: `functions/boom.ts:4:11`. */
      readonly where?: string;
      /** The one-line reason, as logged. */
      readonly reason: string;
    };

/** The first frame of `stack` in the project (not its node_modules), relative to `root`. */
function projectFrame(stack: string, root: string): string | undefined {
  for (const line of stack.split('\n').slice(1)) {
    const match = /\(?((?:file:\/\/)?\/[^()]*?):(\d+):(\d+)\)?$/.exec(line.trim());
    if (match === null) continue;
    const file = match[1]!.replace(/^file:\/\//, '');
    if (!file.startsWith(`${root}/`) || file.includes('/node_modules/')) continue;
    return `${relative(root, file)}:${match[2]}:${match[3]}`;
  }
  return undefined;
}

/** What a watch over the process's end gives back. */
export interface ExitWatch {
  /** Marks the end that follows as asked for (a stop), not a function's doing. */
  stopping(): void;
  /** Stops watching (the dev server closed without the process ending). */
  remove(): void;
}

/**
 * Logs why the process ends when it is not a stop, and writes the note to `noteFile` when given.
 * @example const watch = watchExit({ logger, root, noteFile: process.env[EXIT_NOTE_VAR] })
 */
export function watchExit(options: { logger: Logger; root: string; noteFile: string | undefined }): ExitWatch {
  let stopping = false;
  const onExit = (code: number): void => {
    let note: ExitNote;
    if (stopping) note = { by: 'stop', code };
    else {
      const exchange = requestContext.getStore();
      const name = exchange?.fn?.name;
      const where = projectFrame(new Error().stack ?? '', options.root);
      const who =
        name !== undefined
          ? `function ${name}${where === undefined ? '' : ` (${where})`}`
          : where !== undefined
            ? `code at ${where}`
            : 'code outside any request';
      const reason = `${who} ended the dev server's process with exit code ${code}`;
      note = {
        ...{ by: 'exit', code, reason },
        ...(name === undefined ? {} : { function: name }),
        ...(where === undefined ? {} : { where }),
      };
      // Synchronous on a file, a pipe or a terminal: the line is out before node ends.
      options.logger.line('error', exchange?.logid ?? '', name ?? RUNTIME_FUNCTION, reason, {
        exitCode: code,
        ...(where === undefined ? {} : { where }),
      });
    }
    if (options.noteFile === undefined) return;
    try {
      writeFileSync(options.noteFile, JSON.stringify(note));
    } catch {
      // The parent's folder went away: it sees the exit all the same.
    }
  };
  process.on('exit', onExit);
  return {
    stopping: () => {
      stopping = true;
    },
    remove: () => process.off('exit', onExit),
  };
}
