/**
 * The overload state of one app, after Envoy's overload manager: when open connections or held
 * memory pass `overloadThreshold` percent of their limits, the app is under pressure and its
 * servers' headers, keep-alive and send timeouts are shortened, so the clients that hold
 * resources without using them (header drippers, silent and idle connections, readers that
 * stall) give them back sooner. It also counts every shedding action (connection-limit.ts,
 * memory-budget.ts) for the metrics, and logs each kind once per episode, not once per request:
 * the lines are overload-lines.ts, imported the first time there is one to write.
 */
import type { Server } from 'node:http';
import type { Logger } from '../log/logger.js';
import type { RuntimeOptions } from '../options.js';
import { LazyImport } from '../lazy-import.js';
import type { OverloadAction, OverloadLines } from './overload-lines.js';

export type { OverloadAction } from './overload-lines.js';

/** Points below the threshold at which pressure ends, so that it does not flap at the edge. */
const HYSTERESIS = 10;

/**
 * The log lines of overload (overload-lines.ts), imported the first time there is something to
 * say: a process never under load never reads them.
 */
const linesModule = new LazyImport(() => import('./overload-lines.js'));

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
  #lines: OverloadLines | undefined = undefined;
  /** What to say once the lines are loaded, in order. */
  readonly #unsaid: ((lines: OverloadLines) => void)[] = [];
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
    this.#say((lines) => lines.note(action, now, fields));
  }

  /** Logs the summaries of open episodes and stops their timers (the app shut down). */
  close(): void {
    if (this.#lines !== undefined || this.#unsaid.length > 0) this.#say((lines) => lines.close());
  }

  /** Says it now when the lines are loaded, else once they are, after what came before. */
  #say(say: (lines: OverloadLines) => void): void {
    if (this.#lines !== undefined) return say(this.#lines);
    this.#unsaid.push(say);
    if (this.#unsaid.length > 1) return;
    linesModule.load().then(
      (module) => {
        const lines = (this.#lines ??= new module.OverloadLines(this.#logger));
        for (const unsaid of this.#unsaid.splice(0)) unsaid(lines);
      },
      (error: unknown) => {
        this.#unsaid.length = 0;
        process.stderr.write(`cloudfn: the overload log lines failed to load: ${String(error)}\n`);
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
    const facts = {
      open,
      held,
      maxConnections: o.maxConnections,
      memoryBudget: o.memoryBudget,
      overloadThreshold: o.overloadThreshold,
      headersTimeout: shorter(o.headersTimeout, o.overloadHeadersTimeout),
      keepAliveTimeout: this.keepAliveTimeout,
      sendTimeout: this.sendTimeout,
    };
    this.#say((lines) => lines.begun(facts));
  }

  #end(open: number, held: number): void {
    this.#active = false;
    const o = this.#options;
    for (const server of this.#servers) {
      server.headersTimeout = o.headersTimeout;
      server.keepAliveTimeout = o.keepAliveTimeout;
    }
    for (const listener of this.onChange) listener(false);
    const ms = Date.now() - this.#since;
    this.#say((lines) => lines.ended(open, held, ms));
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
