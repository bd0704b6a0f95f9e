/**
 * The developer loop of `cloudfn dev`: the `Reloader` as the server's function source (built
 * with esbuild and kept in step with their files), and the extension that runs beside it: the
 * watchers (functions and `.env`), the type check, the typed client rewritten when the list
 * changes, every listener of the function list (the console, the local services), and, last
 * of all the hooks, the wait for a save being applied.
 */
import type { IncomingMessage } from 'node:http';
import type { Logger } from '../../runtime/log/logger.js';
import type { ConfigFile } from '../../runtime/serve/config-file.js';
import type { Extension } from '../../runtime/serve/extension.js';
import type { FunctionSource } from '../../runtime/serve/start.js';
import type { FunctionSpec } from '../../runtime/types.js';
import type { EventHub } from './console/event-hub.js';
import { writeDevClient } from './contract.js';
import type { DevEnvironment } from './dev-env.js';
import { type FunctionStatus, Reloader } from './reloader.js';
import { waitForTarget } from './request-wait.js';
import { startTypeErrors } from './type-errors.js';

/** What the loop reads. */
export interface DevLoopOptions {
  root: string;
  logger: Logger;
  config: ConfigFile;
  hub: EventHub;
  env: DevEnvironment;
  /** @default 5 */
  debounceMs?: number;
  /** Check types beside the server. @default false */
  typecheck?: boolean;
  /** Write the typed client here. @default not written */
  client?: string;
  /** ms a function's module may take to load before it is marked failed (the `loadTimeout` option). @default 10000 */
  loadTimeoutMs?: number;
}

/** The reloader as a function source, and the loop as an extension. */
export class DevLoop implements FunctionSource {
  readonly #options: DevLoopOptions;
  readonly #listeners: ((functions: FunctionStatus[]) => void)[] = [];
  #reloader: Reloader | undefined;
  #stopTypes: (() => Promise<void>) | undefined;

  constructor(options: DevLoopOptions) {
    this.#options = options;
    this.onFunctions((list) => options.hub.publish('functions', list));
    if (options.client !== undefined) {
      const out = options.client;
      this.onFunctions((list) => writeDevClient(list, { root: options.root, out, logger: options.logger }));
    }
  }

  /** Builds and loads every function of `functionsDir` but the paths of `functionsIgnore` (the server's source). */
  load(functionsDir: string, functionsIgnore: readonly string[]): Promise<FunctionSpec[]> {
    const { root, logger, config, loadTimeoutMs } = this.#options;
    this.#reloader = new Reloader({
      root,
      logger,
      functionConfig: config.functions ?? {},
      onUpdate: (list) => this.#changed(list),
      debounceMs: this.#options.debounceMs ?? 5,
      functionsDir,
      functionsIgnore,
      ...(loadTimeoutMs === undefined ? {} : { loadTimeoutMs }),
    });
    return this.#reloader.load();
  }

  names(): string[] {
    return this.list().map((fn) => fn.name);
  }

  /** The functions and their build state. */
  list(): FunctionStatus[] {
    return this.#reloader?.list() ?? [];
  }

  /** While a save is being applied, resolves once it is. */
  get pending(): Promise<void> | undefined {
    return this.#reloader?.pending;
  }

  /** Calls `listener` with the list each time it changes (and once when the server is ready). */
  onFunctions(listener: (functions: FunctionStatus[]) => void): void {
    this.#listeners.push(listener);
  }

  /** Resolves once the changes seen so far are applied. */
  async settled(): Promise<void> {
    for (let pending = this.pending; pending !== undefined; pending = this.pending) await pending;
  }

  /** The extension: watching from `prepare` on, stopping on close. */
  extension(): Extension {
    let wait: ((req: IncomingMessage) => Promise<void> | undefined) | undefined;
    return {
      name: 'reload',
      // While a save is being applied, a request to a function it rebuilds waits and runs the
      // saved code (request-wait.ts); the dispatcher answers the routes before any waits.
      onRequest: (req) => wait?.(req),
      prepare: (app) => {
        const reloader = this.#reloader!;
        wait = waitForTarget(app, reloader);
        reloader.watch(app);
        this.#options.env.watch((file) => reloader.notify(file, true));
        if (this.#options.typecheck === true) this.#stopTypes = startTypeErrors(this.#options);
        this.#changed(reloader.list());
      },
      close: () => this.close(),
    };
  }

  /** Stops the type check and the reloader's watching and builds. */
  async close(): Promise<void> {
    await this.#stopTypes?.();
    await this.#reloader?.close();
  }

  #changed(list: FunctionStatus[]): void {
    for (const listener of this.#listeners) listener(list);
  }
}
