/**
 * What the overload state says in the log: the first line of each shedding action in an
 * episode, its summary once the action has been quiet for a while, and the lines where pressure
 * begins and ends. Loaded by overload.ts the first time there is something to say, so a process
 * that never comes under load never reads it (in a bundle, a chunk; issue 44, item 4).
 */
import type { Logger } from '../log/logger.js';

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

interface Episode {
  count: number;
  since: number;
  last: number;
  timer: NodeJS.Timeout | undefined;
}

/** The numbers the line where pressure begins shows. */
export interface PressureFacts {
  open: number;
  held: number;
  maxConnections: number;
  memoryBudget: number;
  overloadThreshold: number;
  headersTimeout: number;
  keepAliveTimeout: number;
  sendTimeout: number;
}

/** The overload lines of one app, each action logged once per episode. */
export class OverloadLines {
  readonly #logger: Logger;
  readonly #episodes = new Map<OverloadAction, Episode>();

  constructor(logger: Logger) {
    this.#logger = logger;
  }

  /** An action taken at `now`: its first of an episode is logged, the rest counted for the summary. */
  note(action: OverloadAction, now: number, fields?: Record<string, unknown>): void {
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

  begun(p: PressureFacts): void {
    this.#logger.line(
      'warn',
      '',
      '',
      `overload: ${p.open} connections open (maxConnections ${p.maxConnections}), ${p.held} bytes held (memoryBudget ${p.memoryBudget}), past overloadThreshold ${p.overloadThreshold}%: timeouts shortened (headers ${p.headersTimeout} ms, keep-alive ${p.keepAliveTimeout} ms, send ${p.sendTimeout} ms) until the load falls`,
      { connections: p.open, heldBytes: p.held },
    );
  }

  ended(open: number, held: number, ms: number): void {
    this.#logger.line(
      'info',
      '',
      '',
      `overload ended after ${(ms / 1000).toFixed(1)} s: ${open} connections open, ${held} bytes held; timeouts restored`,
      { connections: open, heldBytes: held },
    );
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
}
