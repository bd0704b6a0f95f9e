/**
 * The overload state of one app, after Envoy's overload manager: when open connections or held
 * memory pass `overloadThreshold` percent of their limits, the app is under pressure and its
 * servers' headers, keep-alive and send timeouts are shortened, so the clients that hold
 * resources without using them (header drippers, silent and idle connections, readers that
 * stall) give them back sooner. It also counts every shedding action (connection-limit.ts,
 * memory-budget.ts) for the metrics, and logs each kind once per episode, not once per request.
 */
import type { Server } from 'node:http';
import type { Logger } from '../log/logger.js';
import type { RuntimeOptions } from '../options.js';

/** The actions taken under load, each counted and logged once per episode. */
export type OverloadAction =
  | 'idleShed'
  | 'headlessShed'
  | 'connectionRefused'
  | 'stalledCut'
  | 'bodyWaited'
  | 'memoryRefused';

/** What each action's first line of an episode says (the summary adds the count). */
const SAYS: Record<OverloadAction, string> = {
  idleShed: 'an idle keep-alive connection was closed to admit a new one (maxConnections)',
  headlessShed: 'a connection that had not sent a whole request head was closed to admit a new one (maxConnections)',
  connectionRefused: 'a request was refused 503 CLOUDFN_TOO_MANY_CONNECTIONS: no connection could be shed',
  stalledCut: 'an answer its client did not read was cut to free the memory budget for a new request',
  bodyWaited: 'a request body waited, unread, for the memory budget to free (memoryWaitTimeout)',
  memoryRefused: 'a request was refused 503 CLOUDFN_OVERLOADED: the memory budget did not free in time',
};

/** An episode of one action ends after this long without it; its summary line is then logged. */
const EPISODE_QUIET_MS = 10_000;

/** Points below the threshold at which pressure ends, so that it does not flap at the edge. */
const HYSTERESIS = 10;

/** The options the overload state reads. */
type OverloadOptions = Pick<
  RuntimeOptions,
  | 'maxConnections'
  | 'memoryBudget'
  | 'overloadThreshold'
  | 'headersTimeout'
  | 'keepAliveTimeout'
  | 'sendTimeout'
  | 'overloadHeadersTimeout'
  | 'overloadKeepAliveTimeout'
  | 'overloadSendTimeout'
>;

interface Episode {
  count: number;
  since: number;
  last: number;
  timer: NodeJS.Timeout | undefined;
}

/** Pressure, shortened timeouts, and the count of every shedding action. */
export class Overload {
  readonly #options: OverloadOptions;
  readonly #logger: Logger;
  readonly #servers = new Set<Server>();
  readonly #counts: Record<OverloadAction, number> = {
    idleShed: 0,
    headlessShed: 0,
    connectionRefused: 0,
    stalledCut: 0,
    bodyWaited: 0,
    memoryRefused: 0,
  };
  readonly #episodes = new Map<OverloadAction, Episode>();
  #active = false;
  #since = 0;
  #episodesOfPressure = 0;
  /** Called with the new state when pressure begins or ends (the connection and memory trackers shorten their sockets' timers). */
  onChange: ((active: boolean) => void)[] = [];

  constructor(options: OverloadOptions, logger: Logger) {
    this.#options = options;
    this.#logger = logger;
  }

  /** True while under pressure. */
  get active(): boolean {
    return this.#active;
  }

  /** Times pressure began. */
  get episodes(): number {
    return this.#episodesOfPressure;
  }

  /** Each action's count since the app started. */
  get counts(): Readonly<Record<OverloadAction, number>> {
    return this.#counts;
  }

  /** The send timeout in force: shortened under pressure. */
  get sendTimeout(): number {
    const { sendTimeout, overloadSendTimeout } = this.#options;
    return this.#active ? shorter(sendTimeout, overloadSendTimeout) : sendTimeout;
  }

  /** The keep-alive timeout in force: shortened under pressure. */
  get keepAliveTimeout(): number {
    const { keepAliveTimeout, overloadKeepAliveTimeout } = this.#options;
    return this.#active ? shorter(keepAliveTimeout, overloadKeepAliveTimeout) : keepAliveTimeout;
  }

  /** Lets pressure shorten this server's timeouts (serve/http-server.ts). */
  attach(server: Server): void {
    this.#servers.add(server);
    server.once('close', () => this.#servers.delete(server));
    if (this.#active) this.#apply(server);
  }

  /**
   * Re-reads the pressure from the open connections and the bytes held: called when either
   * moves (a connection opens or closes, a body or an answer is held or given back).
   */
  update(open: number, held: number): void {
    const { maxConnections, memoryBudget, overloadThreshold } = this.#options;
    if (overloadThreshold === 0) return;
    const over = (limit: number, value: number, points: number): boolean => limit > 0 && value * 100 > limit * points;
    if (!this.#active) {
      if (over(maxConnections, open, overloadThreshold) || over(memoryBudget, held, overloadThreshold))
        this.#begin(open, held);
    } else {
      const low = Math.max(0, overloadThreshold - HYSTERESIS);
      if (!over(maxConnections, open, low) && !over(memoryBudget, held, low)) this.#end(open, held);
    }
  }

  /** Counts an action; its first in an episode is logged, the rest summed in the episode's last line. */
  note(action: OverloadAction, fields?: Record<string, unknown>): void {
    this.#counts[action]++;
    const now = Date.now();
    const episode = this.#episodes.get(action);
    if (episode !== undefined) {
      episode.count++;
      episode.last = now;
      return;
    }
    this.#episodes.set(action, { count: 1, since: now, last: now, timer: this.#watch(action) });
    this.#logger.line(
      'warn',
      '',
      '',
      `overload: ${SAYS[action]}; the next ones are counted, not logged, until ${EPISODE_QUIET_MS / 1000} s pass without one`,
      {
        action,
        ...fields,
      },
    );
  }

  /** Logs the summaries of open episodes and stops their timers (the app shut down). */
  close(): void {
    for (const action of [...this.#episodes.keys()]) this.#endEpisode(action);
  }

  #watch(action: OverloadAction): NodeJS.Timeout {
    return setTimeout(() => this.#recheck(action), EPISODE_QUIET_MS).unref();
  }

  #recheck(action: OverloadAction): void {
    const episode = this.#episodes.get(action);
    if (episode === undefined) return;
    const quiet = Date.now() - episode.last;
    if (quiet >= EPISODE_QUIET_MS) this.#endEpisode(action);
    else episode.timer = setTimeout(() => this.#recheck(action), EPISODE_QUIET_MS - quiet).unref();
  }

  #endEpisode(action: OverloadAction): void {
    const episode = this.#episodes.get(action);
    if (episode === undefined) return;
    clearTimeout(episode.timer);
    this.#episodes.delete(action);
    this.#logger.line(
      'info',
      '',
      '',
      `overload: ${episode.count} times in ${((episode.last - episode.since) / 1000).toFixed(1)} s: ${SAYS[action]}`,
      {
        action,
        count: episode.count,
      },
    );
  }

  #begin(open: number, held: number): void {
    this.#active = true;
    this.#since = Date.now();
    this.#episodesOfPressure++;
    for (const server of this.#servers) this.#apply(server);
    for (const listener of this.onChange) listener(true);
    const o = this.#options;
    this.#logger.line(
      'warn',
      '',
      '',
      `overload: ${open} connections open (maxConnections ${o.maxConnections}), ${held} bytes held (memoryBudget ${o.memoryBudget}), past overloadThreshold ${o.overloadThreshold}%: timeouts shortened (headers ${shorter(o.headersTimeout, o.overloadHeadersTimeout)} ms, keep-alive ${this.keepAliveTimeout} ms, send ${this.sendTimeout} ms) until the load falls`,
      { connections: open, heldBytes: held },
    );
  }

  #end(open: number, held: number): void {
    this.#active = false;
    const o = this.#options;
    for (const server of this.#servers) {
      server.headersTimeout = o.headersTimeout;
      server.keepAliveTimeout = o.keepAliveTimeout;
    }
    for (const listener of this.onChange) listener(false);
    this.#logger.line(
      'info',
      '',
      '',
      `overload ended after ${((Date.now() - this.#since) / 1000).toFixed(1)} s: ${open} connections open, ${held} bytes held; timeouts restored`,
      { connections: open, heldBytes: held },
    );
  }

  #apply(server: Server): void {
    const o = this.#options;
    // node reads both at each check of its connections (headers) and at each response's end (keep-alive).
    server.headersTimeout = shorter(o.headersTimeout, o.overloadHeadersTimeout);
    server.keepAliveTimeout = this.keepAliveTimeout;
  }
}

/** The shorter of two timeouts where 0 is none; a timeout turned off (0) stays off. */
function shorter(normal: number, overload: number): number {
  if (overload === 0 || normal === 0) return normal;
  return Math.min(normal, overload);
}
