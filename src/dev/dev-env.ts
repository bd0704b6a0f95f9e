/**
 * The environment of a dev server's functions: the variables it is given (which win), the
 * project's `.env` under them, and the emulator's data folder by default, all set in
 * `process.env` before any function loads and put back when the server closes; a saved `.env`
 * is read again, its problems reported, and every function reloaded when a value changed.
 */
import { join } from 'node:path';
import type { Logger } from '../../runtime/log/logger.js';
import { RUNTIME_FUNCTION } from '../../runtime/log/record.js';
import { dataHomeFor } from '../app/app-root.js';
import { PLATFORM_ENV_VARS } from '../platform/media-api/platform-options.js';
import { DotenvLayer } from './dotenv.js';
import { TreeWatcher } from './watch-tree.js';

/** A dev server's variables: set on creation, restored by `restore()`. */
export class DevEnvironment {
  readonly #logger: Logger;
  readonly #dotenv: DotenvLayer;
  readonly #previous = new Map<string, string | undefined>();
  #watcher: TreeWatcher | undefined;

  /** @example const env = new DevEnvironment(root, logger, { CLOUDFN_MEDIA_BASE_URL: url }); ...; env.restore() */
  constructor(
    readonly root: string,
    logger: Logger,
    given: Readonly<Record<string, string>> = {},
  ) {
    this.#logger = logger;
    // The server SDK stand-in keeps its database and live rooms in the app's data home: the
    // same folder whichever service runs, alone or with others.
    const dataDir = process.env[PLATFORM_ENV_VARS.dataDir]
      ? {}
      : { [PLATFORM_ENV_VARS.dataDir]: join(dataHomeFor(root), 'platform') };
    for (const [key, value] of Object.entries({ ...dataDir, ...given })) {
      this.#previous.set(key, process.env[key]);
      process.env[key] = value;
    }
    this.#dotenv = new DotenvLayer(join(root, '.env'));
    this.#report(this.#dotenv.load().problems);
  }

  /**
   * Sets variables that win over `.env` (a local service's: `SERVICE_ID`, a component's
   * address) until `restore()`; call it before the functions load.
   */
  set(vars: Readonly<Record<string, string>>): void {
    for (const [key, value] of Object.entries(vars)) {
      const fromDotenv = this.#dotenv.release(key);
      if (!this.#previous.has(key)) this.#previous.set(key, fromDotenv ? undefined : process.env[key]);
      process.env[key] = value;
    }
  }

  /** The value `.env` gives `key`, whether or not it applies (a variable set elsewhere wins). */
  fileValue(key: string): string | undefined {
    return this.#dotenv.fileValue(key);
  }

  /** Reads `.env` again on each save; `reload` is called when a value changed. */
  watch(reload: (file: string) => void): void {
    this.#watcher = new TreeWatcher((path) => {
      if (path !== this.#dotenv.file) return;
      const { problems, changed } = this.#dotenv.load();
      this.#report(problems);
      if (changed.length === 0) return;
      this.#logger.line('info', '', RUNTIME_FUNCTION, `.env changed (${changed.join(', ')}): reloading every function`);
      reload(path);
    });
    this.#watcher.watchDir(this.root);
  }

  /** Stops watching and puts every variable back as it was. */
  restore(): void {
    this.#watcher?.close();
    this.#dotenv.unload();
    for (const [key, value] of this.#previous) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
    this.#previous.clear();
  }

  #report(problems: readonly string[]): void {
    for (const problem of problems)
      this.#logger.line('warn', '', RUNTIME_FUNCTION, `.env ${problem}; the line was skipped`);
  }
}
