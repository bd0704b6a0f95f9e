/**
 * Keeping the served functions in step with the files: each function has an incremental
 * esbuild builder; a change under functions/ (or in a helper a function imports) rebuilds the
 * functions that read it and swaps them into the app with `app.setFunction`. Requests already
 * running keep the handler they started with; the next one gets the new code. New, removed and
 * renamed files are found by discovering again after every change. A function that fails to
 * compile or load is served by a handler that answers 500 with the formatted error; one whose
 * module has not finished loading within `loadTimeoutMs` (a top-level await that never settles)
 * fails alone, and a request waits only for the function it targets (`ready`).
 */
import { withBodyHint } from './body-hint.js';
import { dirname, join, relative, sep } from 'node:path';
import type { App } from '../../runtime/app.js';
import type { FunctionSpec } from '../../runtime/types.js';
import { discoverFunctions } from '../../runtime/serve/discover.js';
import { functionFromModule } from '../../runtime/serve/load.js';
import { RUNTIME_FUNCTION } from '../../runtime/log/record.js';
import type { Logger } from '../../runtime/log/logger.js';
import type { FunctionConfig } from '../../runtime/types.js';
import { createDevBuilder, type DevBuilder } from '../build/dev-compile.js';
import { asFailure, type Gate, gate, logDiscovered, touches } from './reload-parts.js';
import { fileAnswersGateway, functionInput, type FunctionInput } from './function-input.js';
import { evaluateCommonJs, importEsm } from './module-loader.js';
import { withinLoadBound } from './load-bound.js';
import { TreeWatcher } from './watch-tree.js';
import type { FunctionStatus } from './console/protocol.js';

interface Entry {
  name: string;
  file: string;
  where: string;
  builder: DevBuilder | undefined;
  inputs: Set<string>;
  status: FunctionStatus['status'];
  error: string | undefined;
  version: number;
  buildMs: number;
  updatedAt: number;
  input: FunctionInput;
  /** Whether it answers the WebSocket gateway (function-input.ts), from its source file. */
  websocket: boolean;
  esmNoted: boolean;
  /** The CommonJS module of the loaded version: held so Node keeps its source map. */
  module: object | undefined;
  /** Pending while this function is being rebuilt and loaded. */
  loading: Promise<void> | undefined;
}

/** Options of a `Reloader`. */
export interface ReloaderOptions {
  /** The project folder. */
  root: string;
  /** Where reload lines and errors go. */
  logger: Logger;
  /** `functions` of cloudfn.config: per-function config merged under each function's own. @default {} */
  functionConfig?: Readonly<Record<string, FunctionConfig>>;
  /** Called after a change altered the list or a function. */
  onUpdate?: (functions: FunctionStatus[]) => void;
  /** Time to wait for more events after the first one of a save. @default 5 */
  debounceMs?: number;
  /** The folder of the functions, relative to the root (the `functionsDir` option). @default 'functions' */
  functionsDir?: string;
  /** Paths discovery skips (the `functionsIgnore` option). @default [] */
  functionsIgnore?: readonly string[];
  /** ms a function's module may take to load before it is marked failed (the `loadTimeout` option). @default 10000 */
  loadTimeoutMs?: number;
}

/** Serves the functions of a folder and reloads them as their files change. */
export class Reloader {
  readonly root: string;
  readonly #functionsDir: string;
  /** `functionsDir` as configured, for discovery. */
  readonly #dir: string;
  readonly #options: ReloaderOptions;
  readonly #logger: Logger;
  readonly #entries = new Map<string, Entry>();
  readonly #watcher: TreeWatcher;
  #app: App | undefined;
  #changed = new Set<string>();
  #all = false;
  #timer: NodeJS.Timeout | undefined;
  /** Runs of `#apply` not yet finished. */
  #applying = 0;
  #gate: Gate | undefined;
  /** Open from a change until the functions it touches are known (and marked `loading`). */
  #scan: Gate | undefined;
  #closed = false;

  /** @example const reloader = new Reloader({ root, logger }); const specs = await reloader.load(); */
  constructor(options: ReloaderOptions) {
    this.root = options.root;
    this.#dir = options.functionsDir ?? 'functions';
    this.#functionsDir = this.#dir === '.' ? options.root : join(options.root, this.#dir);
    this.#options = options;
    this.#logger = options.logger;
    this.#watcher = new TreeWatcher((path) => this.notify(path));
  }

  /** Pending while a change is being applied (`settled()` of the dev server). Never rejects. */
  get pending(): Promise<void> | undefined {
    return this.#gate?.promise;
  }

  /** The bound on loading one function, in ms. */
  get loadTimeoutMs(): number {
    return this.#options.loadTimeoutMs ?? 10_000;
  }

  /** Whether a change is being applied: only then may a request have to wait (`ready`). */
  get busy(): boolean {
    return this.#gate !== undefined;
  }

  /**
   * Resolves once the function a request to `name` (or to a path under it) runs is up to date
   * with the changes seen so far: right away for a function the change does not touch. Each
   * load is bounded by `loadTimeoutMs`, so this is too. Never rejects.
   */
  async ready(name: string): Promise<void> {
    await this.#scan?.promise;
    for (let at = name; ; at = at.slice(0, at.lastIndexOf('/'))) {
      const entry = this.#entries.get(at);
      if (entry !== undefined) return entry.loading;
      if (!at.includes('/')) return;
    }
  }

  /** Discovers, builds and loads every function; returns the specs to create the app with. */
  async load(): Promise<FunctionSpec[]> {
    const found = this.#discover();
    for (const { name, file } of found) this.#entries.set(name, this.#entry(name, file));
    if (this.#dir === '.') logDiscovered(this.#logger, this.root, found);
    return Promise.all([...this.#entries.values()].map((entry) => this.#load(entry)));
  }

  #discover(): ReturnType<typeof discoverFunctions> {
    return discoverFunctions(this.root, this.#dir, { ignore: this.#options.functionsIgnore ?? [] });
  }

  /** Starts watching the files; changes are applied to `app`. */
  watch(app: App): void {
    this.#app = app;
    this.#watcher.watchTree(this.#functionsDir);
    for (const entry of this.#entries.values()) this.#watchInputs(entry.inputs);
  }

  /** The functions and their state, by name. */
  list(): FunctionStatus[] {
    return [...this.#entries.values()]
      .sort((a, b) => a.name.localeCompare(b.name))
      .map((e) => ({
        name: e.name,
        file: e.where,
        path: e.name === 'index' ? '/' : `/${e.name}`,
        status: e.status,
        ...(e.error === undefined ? {} : { error: e.error }),
        version: e.version,
        buildMs: Math.round(e.buildMs * 10) / 10,
        updatedAt: e.updatedAt,
        input: e.input,
        websocket: e.websocket,
      }));
  }

  /**
   * Reports a changed path (the watcher calls it; so may tests). With `all`, every function is
   * reloaded, e.g. after `.env` changed.
   */
  notify(path: string, all = false): void {
    if (this.#closed) return;
    this.#changed.add(path);
    if (all) this.#all = true;
    this.#gate ??= gate();
    this.#scan ??= gate();
    if (this.#timer === undefined) this.#timer = setTimeout(() => void this.#run(), this.#options.debounceMs ?? 5);
  }

  /**
   * Applies the changes seen so far. Runs overlap: a save while another function is still
   * loading (up to `loadTimeoutMs`) is applied at once; loads of one function are chained.
   */
  async #run(): Promise<void> {
    this.#timer = undefined;
    if (this.#closed) return;
    const paths = [...this.#changed];
    const all = this.#all;
    this.#changed.clear();
    this.#all = false;
    this.#applying++;
    try {
      await this.#apply(paths, all);
    } catch (error) {
      this.#logger.line(
        'error',
        '',
        RUNTIME_FUNCTION,
        `reload failed: ${error instanceof Error ? error.message : String(error)}`,
      );
    } finally {
      this.#applying--;
    }
    if (this.#timer !== undefined) return;
    this.#openScan();
    if (this.#applying > 0) return;
    const done = this.#gate;
    this.#gate = undefined;
    done?.resolve();
  }

  #openScan(): void {
    const scan = this.#scan;
    this.#scan = undefined;
    scan?.resolve();
  }

  async #apply(paths: string[], all: boolean): Promise<void> {
    const app = this.#app;
    if (app === undefined) return this.#openScan();
    let updated = false;
    const tasks: Promise<void>[] = [];
    const reload = (entry: Entry, verb: string): void => {
      // One load of a function at a time: a save during a slow load waits for it (bounded).
      const task = (entry.loading ?? Promise.resolve())
        .then(() => this.#load(entry))
        .then((spec) => {
          if (this.#entries.get(entry.name) !== entry) return;
          app.setFunction(spec);
          if (entry.status === 'ok')
            this.#logger.line(
              'info',
              '',
              RUNTIME_FUNCTION,
              `${verb} ${entry.name} in ${Math.round(entry.buildMs)} ms`,
              { event: verb, name: entry.name, buildMs: entry.buildMs },
            );
        })
        .finally(() => {
          if (entry.loading === task) entry.loading = undefined;
        });
      entry.loading = task;
      tasks.push(task);
    };
    let found: Map<string, string> | undefined;
    try {
      found = new Map(this.#discover().map(({ name, file }) => [name, file]));
    } catch (error) {
      // Two files for one name, or the folder is gone: keep serving what was loaded.
      this.#logger.line('error', '', RUNTIME_FUNCTION, error instanceof Error ? error.message : String(error));
    }
    const scheduled = new Set<Entry>();
    if (found !== undefined) {
      for (const [name, entry] of this.#entries) {
        const file = found.get(name);
        if (file === entry.file) continue;
        this.#entries.delete(name);
        void entry.builder?.dispose();
        updated = true;
        if (file === undefined) {
          app.deleteFunction(name);
          this.#logger.line('info', '', RUNTIME_FUNCTION, `removed ${name} (${entry.where} is gone)`, {
            event: 'removed',
            name,
          });
        }
      }
      for (const [name, file] of found) {
        if (this.#entries.has(name)) continue;
        const entry = this.#entry(name, file);
        this.#entries.set(name, entry);
        scheduled.add(entry);
        reload(entry, 'added');
      }
    }
    for (const entry of this.#entries.values()) {
      if (scheduled.has(entry)) continue;
      if (
        all ||
        (entry.status === 'error' && entry.loading === undefined) ||
        paths.some((path) => touches(entry.inputs, path))
      )
        reload(entry, 'reloaded');
    }
    // Every function this change touches is marked loading: requests to the others go ahead.
    this.#openScan();
    await Promise.all(tasks);
    if ((updated || tasks.length > 0) && !this.#closed) this.#options.onUpdate?.(this.list());
  }

  #entry(name: string, file: string): Entry {
    return {
      name,
      file,
      where: relative(this.root, file),
      builder: undefined,
      inputs: new Set([file]),
      status: 'ok',
      error: undefined,
      version: 0,
      buildMs: 0,
      updatedAt: 0,
      input: functionInput(name, this.#options.functionConfig?.[name]),
      websocket: fileAnswersGateway(name, file),
      esmNoted: false,
      module: undefined,
      loading: undefined,
    };
  }

  /** Builds and evaluates one function; a failure becomes a handler answering the error. */
  async #load(entry: Entry): Promise<FunctionSpec> {
    const started = performance.now();
    const shared = this.#options.functionConfig?.[entry.name];
    try {
      entry.builder ??= await createDevBuilder(this.root, entry.file);
      const built = await entry.builder.build();
      entry.inputs = new Set([entry.file, ...built.inputs]);
      if (this.#app !== undefined) this.#watchInputs(entry.inputs);
      for (const warning of built.warnings) this.#logger.line('warn', '', RUNTIME_FUNCTION, warning);
      let mod: Record<string, unknown>;
      if (built.format === 'cjs') {
        const evaluated = evaluateCommonJs(built.code, entry.file);
        entry.module = evaluated.module;
        mod = { default: evaluated.exports };
      } else {
        if (!entry.esmNoted) {
          entry.esmNoted = true;
          this.#logger.line(
            'warn',
            '',
            RUNTIME_FUNCTION,
            `${entry.where} uses top-level await, so it is loaded as an ES module, which Node never unloads: each reload keeps its old copy in memory`,
          );
        }
        mod = await withinLoadBound(importEsm(built.code, `${this.root}${sep}.cloudfn${sep}dev`, entry.name), {
          ms: this.loadTimeoutMs,
          where: entry.where,
        });
      }
      const spec = functionFromModule(mod, entry.name, entry.where);
      entry.status = 'ok';
      entry.error = undefined;
      entry.version++;
      entry.buildMs = performance.now() - started;
      entry.updatedAt = Date.now();
      const config = { ...shared, ...spec.config };
      entry.input = functionInput(entry.name, config);
      entry.websocket = fileAnswersGateway(entry.name, entry.file);
      // A body sent with the wrong Content-Type gets a hint in dev (src/dev/body-hint.ts).
      return { ...spec, handler: withBodyHint(spec.handler), config };
    } catch (error) {
      const failure = asFailure(error, entry.where);
      if (entry.error !== failure.message)
        this.#logger.line('error', '', RUNTIME_FUNCTION, failure.message, { code: failure.code, name: entry.name });
      entry.status = 'error';
      entry.error = failure.message;
      entry.buildMs = performance.now() - started;
      entry.updatedAt = Date.now();
      return {
        name: entry.name,
        file: entry.where,
        config: { ...shared },
        handler: () => {
          throw failure;
        },
      };
    }
  }

  /** Watches the folders of helpers outside functions/ that a function imports. */
  #watchInputs(inputs: Iterable<string>): void {
    for (const input of inputs) {
      if (input.startsWith(this.#functionsDir + sep)) continue;
      const dir = dirname(input);
      if (!this.#watcher.has(dir)) this.#watcher.watchDir(dir);
    }
  }

  /** Stops watching and frees the builders. */
  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#timer);
    this.#watcher.close();
    this.#openScan();
    this.#gate?.resolve();
    await Promise.all([...this.#entries.values()].map((entry) => entry.builder?.dispose()));
  }
}

/** Declared in the console's protocol, which the page imports too. */
export type { FunctionStatus };
