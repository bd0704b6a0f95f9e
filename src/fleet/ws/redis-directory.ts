/**
 * The session directory of a fleet on Redis (`CLOUDFN_REDIS_URL`): the sessions of every
 * process, and pushes between them. The design and its anchors are in docs/decisions.md
 * ("The WebSocket gateway across a fleet"); the keys and the atomic steps in directory-scripts.ts.
 *
 * - A process is alive while its liveness key is (one key per process, refreshed every
 *   heartbeat, living three); each heartbeat also reaps the processes whose key is gone: one
 *   script claims their sessions for one survivor, which calls `orphaned` once for each.
 * - A session push to this process's sessions is delivered in process; the others are resolved
 *   to their owners and sent to the owners' inboxes in one script, one round trip, and the
 *   owners' answers awaited until the deadline. Anything not answered as delivered is failed.
 * - A group push is one entry of the broadcast stream; each process delivers to its members.
 * - A heartbeat that finds its key missing (Redis restarted or flushed) writes every session
 *   of the process again; one that finds itself reaped takes a new process id and does the same.
 *
 * This file holds the records, the connections and the stopping; the heartbeat and reaping are
 * in directory-heartbeat.ts, the inboxes and their answers in directory-inbox.ts, the group
 * changes and the broadcast in directory-groups.ts, the state they share in directory-state.ts.
 */
import { ConnIds } from '../../platform/gateway/conn-ids.js';
import { loadRedisClientModule } from '../client-module.js';
import { type FleetWarn, jsonWarn, redisClient } from '../connect.js';
import type { RedisSettings } from '../settings.js';
import { DirectoryGroups } from './directory-groups.js';
import { Heartbeat } from './directory-heartbeat.js';
import { DirectoryInbox } from './directory-inbox.js';
import { type DirectoryOptions, resolveDirectoryOptions } from './directory-options.js';
import { HEARTBEAT, LEAVE, LIVE_MEMBERS, QUERY, REGISTER, TAKE_CONN_ID, UNREGISTER } from './directory-scripts.js';
import { type Connected, DirectoryState, registerArgs, sessionFrom } from './directory-state.js';
import { type DirectoryRedis, entryFields, runScript, type StreamEntry } from './run-script.js';
import type {
  ConnIdCheck,
  DirectoryFactory,
  LocalSessions,
  PushVia,
  SessionDirectory,
  SessionInfo,
} from './session-directory.js';
import { BLOCK_MS, StreamReader, type StreamRole } from './stream-reader.js';

/** How long an issued connection id waits, and a used one is remembered. */
const CONN_ID_TTL_MS = 3_600_000;

/** Options of `RedisSessionDirectory`, beyond the environment's. */
export interface RedisDirectoryOptions extends Partial<DirectoryOptions> {
  /** How warnings are reported. @default a JSON line on stdout */
  warn?: FleetWarn;
  /** @default process.env */
  env?: NodeJS.ProcessEnv;
}

/**
 * The directory of one process's gateway in a fleet sharing `settings`' Redis.
 * @example const gateway = new Gateway({ ..., directory: createRedisDirectory(settings) })
 */
export function createRedisDirectory(settings: RedisSettings, options: RedisDirectoryOptions = {}): DirectoryFactory {
  return (local) => new RedisSessionDirectory(local, settings, options);
}

/** The fleet's session directory (see the file's comment). */
export class RedisSessionDirectory implements SessionDirectory {
  readonly #settings: RedisSettings;
  readonly #state: DirectoryState;
  readonly #heartbeat: Heartbeat;
  readonly #groups: DirectoryGroups;
  readonly #inbox: DirectoryInbox;
  readonly #fallbackIds = new ConnIds();

  constructor(local: LocalSessions, settings: RedisSettings, options: RedisDirectoryOptions = {}) {
    this.#settings = settings;
    const state = new DirectoryState(
      local,
      resolveDirectoryOptions(options.env, options),
      options.warn ?? jsonWarn,
      `${settings.keyPrefix}ws:`,
    );
    this.#state = state;
    this.#heartbeat = new Heartbeat(state);
    this.#groups = new DirectoryGroups(state);
    this.#inbox = new DirectoryInbox(state, (action, ids, name, value) => this.#groups.apply(action, ids, name, value));
    state.ready = this.#connect();
    // A failure to connect is reported by each call that needs Redis.
    state.ready.catch(() => undefined);
  }

  /** This process's id in Redis (tests). */
  get processId(): string {
    return this.#state.proc;
  }

  /** The settings in force. */
  get options(): Readonly<DirectoryOptions> {
    return this.#state.options;
  }

  async #connect(): Promise<Connected> {
    const state = this.#state;
    const redis = (await redisClient(this.#settings, state.warn)) as unknown as DirectoryRedis;
    const connection = await this.#readerConnection(redis);
    const first = (await runScript(redis, HEARTBEAT, [state.prefix, state.proc, state.ttl()]).catch(() => undefined)) as
      | [number, number]
      | undefined;
    const redisNow = first?.[1] ?? Date.now();
    const reader = new StreamReader(
      connection,
      () => this.#streams(),
      (role, entries) => this.#onEntries(role, entries),
      state.warn,
      // Broadcasts from now on: a new process has no group members to deliver older ones to.
      `${redisNow}-0`,
    );
    reader.start();
    this.#heartbeat.start();
    // Back from an outage: look at once rather than at the next tick (re-register early).
    redis.on('ready', this.#onReady);
    return { redis, reader };
  }

  readonly #onReady = (): void => {
    if (!this.#state.closed) void this.#heartbeat.beat();
  };

  /** A connection of its own for the blocking reads. */
  async #readerConnection(shared: DirectoryRedis): Promise<DirectoryRedis> {
    const margin = Math.max(1000, this.#settings.commandTimeoutMs * 3);
    if (this.#settings.url === undefined) {
      const duplicate = (shared as { duplicate?: (options?: object) => DirectoryRedis }).duplicate;
      if (duplicate === undefined) throw new Error('the redis client given in code has no duplicate()');
      return duplicate.call(shared, { commandTimeout: BLOCK_MS + margin, enableOfflineQueue: true });
    }
    const mod = await loadRedisClientModule(this.#settings.source);
    const reader = new mod.default(this.#settings.url, {
      commandTimeout: BLOCK_MS + margin,
      connectTimeout: margin,
      maxRetriesPerRequest: 0,
      retryStrategy: (times: number) => Math.min(50 * 2 ** Math.min(times, 6), 2000),
    }) as unknown as DirectoryRedis;
    // Reported by the loop's failing reads; an unhandled `error` event would end the process.
    reader.on('error', () => undefined);
    return reader;
  }

  #streams(): Record<StreamRole, string> {
    const { prefix, proc } = this.#state;
    return {
      inbox: `${prefix}in:${proc}`,
      replies: `${prefix}re:${proc}`,
      broadcast: `${prefix}bc`,
    };
  }

  /** What the stream reader hands on, to the part that reads each stream. */
  #onEntries(role: StreamRole, entries: StreamEntry[]): void {
    if (role === 'replies') for (const [, fields] of entries) this.#inbox.onReply(entryFields(fields));
    else if (role === 'inbox') void this.#inbox.onInbox(entries);
    else for (const [, fields] of entries) this.#groups.onBroadcast(entryFields(fields));
  }

  // ---- records ----

  async added(info: SessionInfo): Promise<void> {
    const state = this.#state;
    try {
      const { redis } = await state.ready;
      const written = await runScript(redis, REGISTER, [state.prefix, state.proc, ...registerArgs(info)]);
      if (written === -1) state.mustRegister = true;
    } catch (error) {
      // Written at the next heartbeat; meanwhile pushes from other processes do not find it.
      state.mustRegister = true;
      state.redisFailed(`register session ${info.sessionId}`, error);
    }
  }

  async removed(sessionId: string): Promise<void> {
    const state = this.#state;
    try {
      const { redis } = await state.ready;
      await runScript(redis, UNREGISTER, [state.prefix, state.proc, sessionId]);
    } catch (error) {
      state.redisFailed(`remove session ${sessionId}`, error);
    }
  }

  async sessionsOf(openid: string): Promise<string[]> {
    return this.#members(`u:${openid}`, () => this.#state.local.sessionsOf(openid));
  }

  async groupMembers(name: string, value: string): Promise<string[]> {
    return this.#members(`g:${name}=${value}`, () => this.#state.local.groupMembers(name, value));
  }

  /** A set's live sessions from Redis; this process's own when Redis does not answer. */
  async #members(set: string, own: () => string[]): Promise<string[]> {
    try {
      const { redis } = await this.#state.ready;
      const found = (await runScript(redis, LIVE_MEMBERS, [this.#state.prefix, set])) as string[];
      // Ours first, as the single-process gateway lists them; then the others.
      const mine = own();
      const seen = new Set(mine);
      return [...mine, ...found.filter((id) => !seen.has(id))];
    } catch (error) {
      this.#state.redisFailed('list sessions', error);
      return own();
    }
  }

  async query(sessionId: string): Promise<SessionInfo | undefined> {
    const mine = this.#state.local.session(sessionId);
    if (mine !== undefined) return mine;
    try {
      const { redis } = await this.#state.ready;
      const [info, groups] = (await runScript(redis, QUERY, [this.#state.prefix, sessionId])) as string[];
      return info === undefined ? undefined : sessionFrom(info, groups ?? '');
    } catch (error) {
      this.#state.redisFailed(`query session ${sessionId}`, error);
      return undefined;
    }
  }

  // ---- pushes and group changes ----

  async pushSessions(sessionIds: readonly string[], data: Buffer, binary: boolean, via: PushVia): Promise<string[]> {
    const local = this.#state.local;
    const failed: string[] = [];
    const remote: string[] = [];
    for (const id of sessionIds) {
      if (local.session(id) === undefined) remote.push(id);
      else if (!local.deliver(id, data, binary, via)) failed.push(id);
    }
    if (remote.length === 0) return failed;
    const done = await this.#inbox.send('p', remote, [data, binary ? '1' : '0', via], (id) =>
      local.deliver(id, data, binary, via),
    );
    for (const id of remote) if (!done.has(id)) failed.push(id);
    return failed;
  }

  async grouped(
    action: 'join' | 'leave',
    sessionIds: readonly string[],
    name: string,
    value: string,
  ): Promise<string[]> {
    const local = this.#state.local;
    const mine = sessionIds.filter((id) => local.session(id) !== undefined);
    const remote = sessionIds.filter((id) => local.session(id) === undefined);
    const notHere = new Set(await this.#groups.apply(action, mine, name, value));
    const missing = mine.filter((id) => notHere.has(id));
    if (remote.length > 0) {
      // The owner changes its gateway's groups and its records, and answers: a group push sent
      // after this resolves finds the session in the group on its owner.
      const done = await this.#inbox.send('g', remote, [action, name, value], () => false);
      for (const id of remote) if (!done.has(id)) missing.push(id);
    }
    return missing;
  }

  pushGroup(name: string, value: string, data: Buffer, binary: boolean): Promise<void> {
    return this.#groups.push(name, value, data, binary);
  }

  // ---- connection ids ----

  async issueConnId(): Promise<string> {
    const id = this.#fallbackIds.issue();
    try {
      const { redis } = await this.#state.ready;
      await redis.set(`${this.#state.prefix}cid:${id}`, 'w', 'PX', CONN_ID_TTL_MS);
    } catch (error) {
      // Good on this process only (kept by the fallback): say so once.
      this.#state.redisFailed('share a connection id', error);
    }
    return id;
  }

  async takeConnId(id: string, requireIssued: boolean): Promise<ConnIdCheck> {
    try {
      const { redis } = await this.#state.ready;
      const check = (await runScript(redis, TAKE_CONN_ID, [
        this.#state.prefix,
        id,
        requireIssued ? '1' : '0',
        CONN_ID_TTL_MS,
      ])) as ConnIdCheck;
      this.#fallbackIds.take(id, false);
      return check;
    } catch (error) {
      this.#state.redisFailed('check a connection id', error);
      return this.#fallbackIds.take(id, requireIssued);
    }
  }

  // ---- stopping ----

  async close(): Promise<void> {
    const state = this.#state;
    if (state.closed) return;
    state.closed = true;
    this.#heartbeat.stop();
    let ready: Connected | undefined;
    try {
      ready = await state.ready;
    } catch {
      // Never connected: nothing was written.
    }
    if (ready !== undefined) {
      const { redis, reader } = ready;
      redis.off?.('ready', this.#onReady);
      await this.#heartbeat.settled();
      const inbox = `${state.prefix}in:${state.proc}`;
      const from = reader.lastId(inbox);
      await reader.stop();
      try {
        // No new push is routed here once the records are gone; then what is already in the
        // inbox is answered (as failed: the sockets are closed) so no sender waits for it.
        while ((await runScript(redis, LEAVE, [state.prefix, state.proc, 1000])) !== 0);
        const rest = await redis.xreadBuffer('COUNT', 10_000, 'STREAMS', inbox, from);
        const entries = rest?.[0]?.[1] ?? [];
        if (entries.length > 0) await this.#inbox.onInbox(entries);
        await redis.del(inbox);
      } catch (error) {
        state.redisFailed('remove its records', error);
      }
    }
    this.#inbox.finishAll();
  }
}
