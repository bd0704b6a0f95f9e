/**
 * From a request path to a function: custom routes of `cloudfn.config` first (path-to-regexp
 * patterns such as `/videos/:vid`, in the order written), then the longest function name that
 * is a prefix of the path (`/videos/list/more` → `videos/list`), and `/` → `index`.
 * path-to-regexp is imported only for a custom route (`routePatterns`): the bundle of one
 * function routes every path without it, so its start-up neither reads nor compiles it.
 */
import type * as PathToRegexp from 'path-to-regexp';
import type { MatchFunction } from 'path-to-regexp';
import { createError } from '../errors.js';
import { commonJs, LazyImport } from '../lazy-import.js';
import type { LoadedFunction } from '../types.js';

/** The function of path-to-regexp the router compiles patterns with. */
export type RouteCompiler = typeof PathToRegexp.match;

/**
 * path-to-regexp of this process. Code that creates an app awaits `loadRoutePatterns` first;
 * `cloudfn/runtime` (runtime/index.ts) provides it, so `createApp` stays synchronous.
 */
export const routePatterns = new LazyImport<RouteCompiler>(() =>
  import('path-to-regexp').then((m) => commonJs<typeof PathToRegexp>(m).match),
);

export type RouteParams = Record<string, string | string[]>;

/** A matched request: the function and the parameters of a custom route. */
export interface RouteMatch {
  fn: LoadedFunction;
  params: RouteParams | undefined;
}

interface CustomRoute {
  pattern: string;
  target: string;
  match: MatchFunction<RouteParams>;
}

/** The route that sends every path to one function: `/` and anything under it. */
export const EVERY_PATH = '/{*path}';

/** True when a pattern of `routes` needs path-to-regexp (any but `EVERY_PATH`). */
function needsCompiler(routes: Readonly<Record<string, string>>): boolean {
  for (const pattern of Object.keys(routes)) if (pattern !== EVERY_PATH) return true;
  return false;
}

/**
 * Loads path-to-regexp when `routes` has a pattern to compile; resolves at once otherwise.
 * @example await loadRoutePatterns(config.routes); const app = createApp({ functions, routes: config.routes })
 */
export async function loadRoutePatterns(routes: Readonly<Record<string, string>> = {}): Promise<void> {
  if (needsCompiler(routes)) await routePatterns.load();
}

/**
 * `EVERY_PATH` matched without path-to-regexp, as it would match: `/` has no `path`, any other
 * path its segments, each percent-decoded (a trailing `/` leaves an empty last segment). The
 * bundle of a single function routes every request through it: compiling the pattern cost
 * 1.2 ms of each cold start, and matching it a regular expression and an array per request.
 * The pipeline has refused a path with a bad escape before routing.
 */
function matchEveryPath(rawPath: string): false | { params: RouteParams } {
  if (rawPath.charCodeAt(0) !== 47 /* / */) return false;
  if (rawPath.length === 1) return { params: {} };
  const segments = rawPath.slice(1).split('/');
  for (let i = 0; i < segments.length; i++) {
    const segment = segments[i]!;
    if (segment.includes('%')) segments[i] = decodeURIComponent(segment);
  }
  return { params: { path: segments } };
}

export class Router {
  readonly #functions = new Map<string, LoadedFunction>();
  readonly #routes: CustomRoute[] = [];

  /**
   * @param routes pattern → function name, e.g. `{ "/videos/:vid": "videos/get" }`
   */
  constructor(functions: Iterable<LoadedFunction>, routes: Readonly<Record<string, string>> = {}) {
    for (const fn of functions) this.#functions.set(fn.name, fn);
    const compile = routePatterns.value;
    if (compile === undefined && needsCompiler(routes)) {
      // A caller inside cloudfn that skipped loadRoutePatterns: a defect, not a user's error.
      throw new Error('path-to-regexp is not loaded: await loadRoutePatterns(routes) before creating the app');
    }
    for (const [pattern, target] of Object.entries(routes)) {
      let match: MatchFunction<RouteParams>;
      try {
        match =
          pattern === EVERY_PATH ? (matchEveryPath as MatchFunction<RouteParams>) : compile!<RouteParams>(pattern);
      } catch (error) {
        throw createError(
          'CLOUDFN_BAD_CONFIG',
          `cloudfn.config routes ${JSON.stringify(pattern)}`,
          `${(error as Error).message.split('\n')[0]}; write patterns like "/videos/:vid"`,
        );
      }
      if (typeof target !== 'string' || target === '') {
        throw createError(
          'CLOUDFN_BAD_CONFIG',
          `cloudfn.config routes ${JSON.stringify(pattern)}`,
          `the target must be a function name such as "videos/get", got ${JSON.stringify(target)}`,
        );
      }
      this.#routes.push({ pattern, target, match });
    }
  }

  /** Throws when a custom route names a function that does not exist. */
  check(): void {
    for (const route of this.#routes) {
      if (!this.#functions.has(route.target)) {
        const known = [...this.#functions.keys()].join(', ') || 'none';
        throw createError(
          'CLOUDFN_BAD_CONFIG',
          `cloudfn.config routes ${JSON.stringify(route.pattern)}`,
          `no function is named ${JSON.stringify(route.target)} (functions: ${known})`,
        );
      }
    }
  }

  /** Adds or replaces a function (dev reload). */
  set(fn: LoadedFunction): void {
    this.#functions.set(fn.name, fn);
  }

  delete(name: string): void {
    this.#functions.delete(name);
  }

  get(name: string): LoadedFunction | undefined {
    return this.#functions.get(name);
  }

  list(): LoadedFunction[] {
    return [...this.#functions.values()].sort((a, b) => a.name.localeCompare(b.name));
  }

  /** The routes of `cloudfn.config`, for the console and the start-up line. */
  routes(): { pattern: string; target: string }[] {
    return this.#routes.map(({ pattern, target }) => ({ pattern, target }));
  }

  /**
   * @param rawPath the path as sent, for custom routes (they decode their own parameters)
   * @param path the decoded path, for function names
   */
  match(rawPath: string, path: string): RouteMatch | undefined {
    for (let i = 0; i < this.#routes.length; i++) {
      const route = this.#routes[i]!;
      const found = route.match(rawPath);
      if (found !== false) {
        const fn = this.#functions.get(route.target);
        if (fn !== undefined) return { fn, params: found.params };
      }
    }
    // The common case, `/hello`, is one map lookup.
    let name = path.charCodeAt(path.length - 1) === 47 /* / */ ? path.slice(1, -1) : path.slice(1);
    if (name === '') name = 'index';
    for (;;) {
      const fn = this.#functions.get(name);
      if (fn !== undefined) return { fn, params: undefined };
      const slash = name.lastIndexOf('/');
      if (slash <= 0) return undefined;
      name = name.slice(0, slash);
    }
  }
}
