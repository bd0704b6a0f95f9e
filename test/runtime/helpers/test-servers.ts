/**
 * Servers for the socket tests: `start` serves functions on a free port of 127.0.0.1 with a
 * memory log, and every server a test started is closed after it (unless the test closed it
 * itself and said so with `forget`).
 */
import { afterEach } from 'vitest';
import { Logger } from '../../../runtime/log/logger.js';
import { createMemorySink } from '../../../runtime/log/sinks.js';
import type { RuntimeOptions } from '../../../runtime/options.js';
import { serve, type RunningServer } from '../../../runtime/serve/start.js';
import type { FunctionSpec, Handler } from '../../../runtime/types.js';
import type { LogSink } from '../../../runtime/log/record.js';

/** What `start` takes besides the functions. */
export interface StartOptions {
  /** Options that win over every source. */
  overrides?: Partial<RuntimeOptions>;
  /** The environment the options are read from. @default {} */
  env?: NodeJS.ProcessEnv;
}

/**
 * Serves handlers by name on a free port of 127.0.0.1, logging into `sink`, for a test file
 * that starts one server for all its tests (and closes it itself).
 * @example server = await serveHandlers({ hello: () => 'hi' }, sink)
 */
export function serveHandlers(functions: Record<string, Handler>, sink: LogSink): Promise<RunningServer> {
  return serve(
    Object.entries(functions).map(([name, handler]) => ({ name, handler })),
    {
      flags: { port: '0', host: '127.0.0.1' },
      env: {},
      logger: new Logger(sink),
      handleSignals: false,
      keepServing: false,
    },
  );
}

/**
 * Registers the clean-up and returns the starter; call it once at the top of a test file.
 * @example const servers = testServers(); const server = await servers.start([echo]);
 */
export function testServers() {
  let running: RunningServer | undefined;
  let sink = createMemorySink();
  afterEach(async () => {
    await running?.close();
    running = undefined;
  });
  return {
    /** The memory log of the last server started. */
    get sink() {
      return sink;
    },
    async start(functions: FunctionSpec[], options: StartOptions = {}): Promise<RunningServer> {
      sink = createMemorySink();
      running = await serve(functions, {
        flags: { port: '0', host: '127.0.0.1' },
        env: options.env ?? {},
        overrides: options.overrides ?? {},
        logger: new Logger(sink),
        handleSignals: false,
        keepServing: false,
      });
      return running;
    },
    /** The test closed (or never got) its server: nothing to close after it. */
    forget(): void {
      running = undefined;
    },
  };
}
