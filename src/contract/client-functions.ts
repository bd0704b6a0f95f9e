/**
 * Which functions `cloudfn client` offers the mini-program. The platform, not a mini-program,
 * calls some of them, and those are left out by default: timers (`config.schedule`), the live
 * room's data path (`liveData.path`), and callbacks (a name ending in `callback`, as the
 * platform's `websocket_callback` and `live_data_callback`). A function's `client` config
 * (`false` out, `true` in, `'inner-call'` out as called only by the app's other services over
 * the inner-call host, in its module or under `functions` in cloudfn.config) overrides the
 * defaults, and `--include`/`--exclude` override everything (docs/contracts.md#what-the-client-offers).
 */
import type { FunctionConfig, FunctionSpec } from '../../runtime/types.js';

/** What `clientFunctions` reads of cloudfn.config. */
export interface ClientConfig {
  functions?: Readonly<Record<string, FunctionConfig>>;
  liveData?: unknown;
}

/** `--include` and `--exclude`: function names, or patterns with `*` (`admin/*`). */
export interface ClientSelection {
  include?: readonly string[];
  exclude?: readonly string[];
}

/** A function left out of the client, and why. */
export interface LeftOut {
  name: string;
  why: string;
}

function matches(patterns: readonly string[] | undefined, name: string): boolean {
  return (patterns ?? []).some((pattern) =>
    new RegExp(`^${pattern.replace(/[.+^${}()|[\]\\?]/g, '\\$&').replaceAll('*', '.*')}$`).test(name),
  );
}

/** Why the platform, not a mini-program, calls `fn`; undefined when a mini-program may. */
function calledByPlatform(
  fn: FunctionSpec,
  config: FunctionConfig,
  liveDataPath: string | undefined,
): string | undefined {
  if (config.schedule !== undefined) return 'a timer (config.schedule)';
  if (liveDataPath !== undefined && (liveDataPath === `/${fn.name}` || (fn.name === 'index' && liveDataPath === '/')))
    return 'the live-data path (liveData.path)';
  if (/callback$/i.test(fn.name.split('/').pop() ?? ''))
    return 'a callback the platform calls (its name ends in callback)';
  return undefined;
}

/**
 * The functions to offer, and those left out with the reason.
 * @example clientFunctions(project.functions, config, { exclude: ['start_game'] })
 */
export function clientFunctions(
  functions: readonly FunctionSpec[],
  config: ClientConfig,
  selection: ClientSelection = {},
): { kept: FunctionSpec[]; left: LeftOut[] } {
  const live = config.liveData as { path?: unknown } | undefined;
  const liveDataPath = typeof live?.path === 'string' ? live.path : undefined;
  const kept: FunctionSpec[] = [];
  const left: LeftOut[] = [];
  for (const fn of functions) {
    const merged: FunctionConfig = { ...config.functions?.[fn.name], ...fn.config };
    let why: string | undefined;
    if (matches(selection.exclude, fn.name)) why = '--exclude';
    else if (matches(selection.include, fn.name)) why = undefined;
    else if (merged.client === false) why = 'config.client is false';
    else if (merged.client === 'inner-call') why = "only other services call it (config.client 'inner-call')";
    else if (merged.client !== true) why = calledByPlatform(fn, merged, liveDataPath);
    if (why === undefined) kept.push(fn);
    else left.push({ name: fn.name, why });
  }
  return { kept, left };
}
