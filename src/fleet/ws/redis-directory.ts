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
 */
import { hostname } from 'node:os';
import { ConnIds } from '../../platform/gateway/conn-ids.js';
import { loadRedisClientModule } from '../client-module.js';
import { type FleetWarn, jsonWarn, redisClient } from '../connect.js';
import type { RedisSettings } from '../settings.js';
import { type DirectoryOptions, resolveDirectoryOptions } from './directory-options.js';
import {
  FORGET_ORPHANS,
  GROUP,
  HEARTBEAT,
  LEAVE,
  LIVE_MEMBERS,
  QUERY,
  READ_ORPHANS,
  REAP,
  REGISTER,
  SEND,
  TAKE_CONN_ID,
  UNREGISTER,
} from './directory-scripts.js';
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

/** How long a reaped process's tombstone stays: its return, even an hour later, is noticed. */
const TOMBSTONE_MS = 3_600_000;
/** How long a stream outlives its last entry: a process that never comes back leaves nothing. */
const STREAM_TTL_MS = 60_000;
/** The longest heartbeat round trip whose answer is taken to read Redis' clock. */
const CLOCK_SAMPLE_MAX_MS = 50;
/** How long an issued connection id waits, and a used one is remembered. */
const CONN_ID_TTL_MS = 3_600_000;

/** A push or group change waiting for its owners' answers. */
interface Waiting {
  /** Sessions the owners answered as done. */
  done: Set<string>;
  /** Owners that must answer; -1 until the send script answered (or when it failed). */
  owners: number;
  answered: number;
  finish: () => void;
}

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
  readonly #local: LocalSessions;
  readonly #settings: RedisSettings;
  readonly #options: DirectoryOptions;
  readonly #warn: FleetWarn;
  readonly #prefix: string;
  /** This process in Redis; a new one after it was reaped. */
  #proc: string;
  readonly #ready: Promise<{ redis: DirectoryRedis; reader: StreamReader }>;
  readonly #waiting = new Map<string, Waiting>();
  readonly #fallbackIds = new ConnIds();
  /** Orphans handed to the gateway whose records are not yet forgotten in Redis. */
  readonly #handled = new Set<string>();
  #nextRequest = 0;
  #timer: NodeJS.Timeout | undefined;
  #beating: Promise<void> | undefined;
  /** The records must be written again (Redis lost them, or a write failed). */
  #mustRegister = false;
  #closed = false;
  #redisDown = false;
  /** Redis' clock minus this one's, measured at each heartbeat: reads an inbox entry's deadline. */
  #clockOffset = 0;

  constructor(local: LocalSessions, settings: RedisSettings, options: RedisDirectoryOptions = {}) {
    this.#local = local;
    this.#settings = settings;
    this.#options = resolveDirectoryOptions(options.env, options);
    this.#warn = options.warn ?? jsonWarn;
    this.#prefix = `${settings.keyPrefix}ws:`;
    this.#proc = newProcessId();
    this.#ready = this.#connect();
    // A failure to connect is reported by each call that needs Redis.
    this.#ready.catch(() => undefined);
  }

  /** This process's id in Redis (tests). */
  get processId(): string {
    return this.#proc;
  }

  /** The settings in force. */
  get options(): Readonly<DirectoryOptions> {
    return this.#options;
  }

  async #connect(): Promise<{ redis: DirectoryRedis; reader: StreamReader }> {
    const redis = (await redisClient(this.#settings, this.#warn)) as unknown as DirectoryRedis;
    const connection = await this.#readerConnection(redis);
    const first = (await runScript(redis, HEARTBEAT, [this.#prefix, this.#proc, this.#ttl()]).catch(() => undefined)) as
      | [number, number]
      | undefined;
    const redisNow = first?.[1] ?? Date.now();
    const reader = new StreamReader(
      connection,
      () => this.#streams(),
      (role, entries) => this.#onEntries(role, entries),
      this.#warn,
      // Broadcasts from now on: a new process has no group members to deliver older ones to.
      `${redisNow}-0`,
    );
    reader.start();
    this.#timer = setInterval(() => void this.#heartbeat(), this.#options.heartbeatMs);
    this.#timer.unref();
    // Back from an outage: look at once rather than at the next tick (re-register early).
    redis.on('ready', this.#onReady);
    return { redis, reader };
  }

  readonly #onReady = (): void => {
    if (!this.#closed) void this.#heartbeat();
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

  #ttl(): number {
    return this.#options.heartbeatMs * 3;
  }

  #streams(): Record<StreamRole, string> {
    return {
      inbox: `${this.#prefix}in:${this.#proc}`,
      replies: `${this.#prefix}re:${this.#proc}`,
      broadcast: `${this.#prefix}bc`,
    };
  }

  #redisFailed(what: string, error: unknown): void {
    if (this.#redisDown) return;
    this.#redisDown = true;
    this.#warn(
      `the session directory could not ${what} (${(error as Error).message}); pushes to other processes fail until Redis answers`,
    );
  }

  // ---- the heartbeat: liveness, re-registration, reaping ----

  #heartbeat(): Promise<void> {
    this.#beating ??= this.#beat().finally(() => (this.#beating = undefined));
    return this.#beating;
  }

  async #beat(): Promise<void> {
    if (this.#closed) return;
    let redis: DirectoryRedis;
    try {
      ({ redis } = await this.#ready);
      const sent = Date.now();
      const [state, redisNow] = (await runScript(redis, HEARTBEAT, [this.#prefix, this.#proc, this.#ttl()])) as [
        number,
        number,
      ];
      // Only from a quick answer: one held up (a stopped process, a stalled loop) would put
      // Redis' clock too early by half the hold-up and let entries past their deadline through.
      const roundTrip = Date.now() - sent;
      if (roundTrip <= CLOCK_SAMPLE_MAX_MS) this.#clockOffset = redisNow - (sent + roundTrip / 2);
      if (this.#redisDown) {
        this.#redisDown = false;
        this.#warn('the session directory reaches Redis again');
      }
      if (state === -1) {
        // Reaped while it could not answer (stopped, partitioned): a survivor called disconnect
        // for its sessions. Their sockets are still open here, so they go on under a new id.
        const old = this.#proc;
        this.#proc = newProcessId();
        this.#warn(
          `the session directory was declared dead by the fleet (no heartbeat for ${this.#ttl()} ms) as ${old}; its sessions are registered again as ${this.#proc}`,
        );
        await runScript(redis, HEARTBEAT, [this.#prefix, this.#proc, this.#ttl()]);
        this.#mustRegister = true;
        // Wake the reader blocked on the old inbox, so it reads the new one from now on.
        const oldInbox = `${this.#prefix}in:${old}`;
        await redis.xadd(oldInbox, '*', 't', 'w');
        await redis.pexpire(oldInbox, this.#options.heartbeatMs);
      } else if (state === 0) {
        this.#mustRegister = true;
      }
      if (this.#mustRegister) await this.#registerAll(redis);
      await this.#reap(redis);
    } catch (error) {
      this.#redisFailed('refresh its liveness key', error);
    }
  }

  /** Writes every session of this process again, in batches of one script each. */
  async #registerAll(redis: DirectoryRedis): Promise<void> {
    this.#mustRegister = true;
    const sessions = this.#local.list();
    for (let i = 0; i < sessions.length; i += 200) {
      const args = sessions.slice(i, i + 200).flatMap(registerArgs);
      const written = await runScript(redis, REGISTER, [this.#prefix, this.#proc, ...args]);
      if (written === -1) return; // reaped meanwhile: the next heartbeat starts over
    }
    this.#mustRegister = false;
  }

  /**
   * Claims the sessions of dead processes (REAP), then handles its claims in batches: read,
   * `orphaned` once each, then forgotten in Redis. A batch's forgetting that timed out is read
   * again at the next heartbeat; `#handled` keeps its ids so none is handed on twice.
   */
  async #reap(redis: DirectoryRedis): Promise<void> {
    const batch = this.#options.reapBatch;
    for (;;) {
      const claimed = Number(await runScript(redis, REAP, [this.#prefix, this.#proc, batch, TOMBSTONE_MS]));
      const flat = (await runScript(redis, READ_ORPHANS, [this.#prefix, this.#proc, batch])) as string[];
      const ids: string[] = [];
      for (let i = 0; i + 2 < flat.length; i += 3) {
        const sid = flat[i]!;
        ids.push(sid);
        if (this.#handled.has(sid)) continue;
        this.#handled.add(sid);
        const info = sessionFrom(flat[i + 1]!, flat[i + 2]!);
        if (info === undefined) continue;
        this.#local.orphaned(info).catch((error: unknown) => {
          this.#warn(`the disconnect call of orphaned session ${sid} failed: ${(error as Error).message}`);
        });
      }
      if (ids.length > 0) {
        await runScript(redis, FORGET_ORPHANS, [this.#prefix, this.#proc, ...ids]);
        for (const id of ids) this.#handled.delete(id);
      }
      if (claimed < batch && ids.length < batch) return;
    }
  }

  // ---- records ----

  async added(info: SessionInfo): Promise<void> {
    try {
      const { redis } = await this.#ready;
      const written = await runScript(redis, REGISTER, [this.#prefix, this.#proc, ...registerArgs(info)]);
      if (written === -1) this.#mustRegister = true;
    } catch (error) {
      // Written at the next heartbeat; meanwhile pushes from other processes do not find it.
      this.#mustRegister = true;
      this.#redisFailed(`register session ${info.sessionId}`, error);
    }
  }

  async removed(sessionId: string): Promise<void> {
    try {
      const { redis } = await this.#ready;
      await runScript(redis, UNREGISTER, [this.#prefix, this.#proc, sessionId]);
    } catch (error) {
      this.#redisFailed(`remove session ${sessionId}`, error);
    }
  }

  async sessionsOf(openid: string): Promise<string[]> {
    return this.#members(`u:${openid}`, () => this.#local.sessionsOf(openid));
  }

  async groupMembers(name: string, value: string): Promise<string[]> {
    return this.#members(`g:${name}=${value}`, () => this.#local.groupMembers(name, value));
  }

  /** A set's live sessions from Redis; this process's own when Redis does not answer. */
  async #members(set: string, own: () => string[]): Promise<string[]> {
    try {
      const { redis } = await this.#ready;
      const found = (await runScript(redis, LIVE_MEMBERS, [this.#prefix, set])) as string[];
      // Ours first, as the single-process gateway lists them; then the others.
      const mine = own();
      const seen = new Set(mine);
      return [...mine, ...found.filter((id) => !seen.has(id))];
    } catch (error) {
      this.#redisFailed('list sessions', error);
      return own();
    }
  }

  async query(sessionId: string): Promise<SessionInfo | undefined> {
    const mine = this.#local.session(sessionId);
    if (mine !== undefined) return mine;
    try {
      const { redis } = await this.#ready;
      const [info, groups] = (await runScript(redis, QUERY, [this.#prefix, sessionId])) as string[];
      return info === undefined ? undefined : sessionFrom(info, groups ?? '');
    } catch (error) {
      this.#redisFailed(`query session ${sessionId}`, error);
      return undefined;
    }
  }

  // ---- pushes and group changes ----

  async pushSessions(sessionIds: readonly string[], data: Buffer, binary: boolean, via: PushVia): Promise<string[]> {
    const failed: string[] = [];
    const remote: string[] = [];
    for (const id of sessionIds) {
      if (this.#local.session(id) === undefined) remote.push(id);
      else if (!this.#local.deliver(id, data, binary, via)) failed.push(id);
    }
    if (remote.length === 0) return failed;
    const done = await this.#send('p', remote, [data, binary ? '1' : '0', via], (id) =>
      this.#local.deliver(id, data, binary, via),
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
    const mine = sessionIds.filter((id) => this.#local.session(id) !== undefined);
    const remote = sessionIds.filter((id) => this.#local.session(id) === undefined);
    const notHere = new Set(await this.#applyGroup(action, mine, name, value));
    const missing = mine.filter((id) => notHere.has(id));
    if (remote.length > 0) {
      // The owner changes its gateway's groups and its records, and answers: a group push sent
      // after this resolves finds the session in the group on its owner.
      const done = await this.#send('g', remote, [action, name, value], () => false);
      for (const id of remote) if (!done.has(id)) missing.push(id);
    }
    return missing;
  }

  /** This process's sessions joined or left in its gateway and in Redis; answers the ids not here. */
  async #applyGroup(action: 'join' | 'leave', ids: readonly string[], name: string, value: string): Promise<string[]> {
    if (ids.length === 0) return [];
    const notHere = this.#local.group(action, ids, name, value);
    const skip = new Set(notHere);
    const changed = ids.filter((id) => !skip.has(id));
    if (changed.length > 0) {
      try {
        const { redis } = await this.#ready;
        await runScript(redis, GROUP, [this.#prefix, this.#proc, action, `${name}=${value}`, ...changed]);
      } catch (error) {
        // The gateway has it; the records follow at the next re-registration.
        this.#mustRegister = true;
        this.#redisFailed('record a group change', error);
      }
    }
    return notHere;
  }

  /**
   * Sends an entry to the owners of `ids` and waits for their answers until the deadline:
   * resolves with the ids answered as done. `self` handles an id whose record names this
   * process though its gateway does not have it (a record left behind).
   */
  async #send(
    type: 'p' | 'g',
    ids: string[],
    payload: [Buffer | string, string, string],
    self: (id: string) => boolean,
  ): Promise<Set<string>> {
    const request = String(++this.#nextRequest);
    // When this sender gives up, on Redis' clock: owners drop what they read after it.
    const deadline = Math.round(Date.now() + this.#clockOffset + this.#options.pushTimeoutMs);
    const done = new Set<string>();
    let finish!: () => void;
    const settled = new Promise<void>((resolve) => (finish = resolve));
    const waiting: Waiting = { done, owners: -1, answered: 0, finish };
    this.#waiting.set(request, waiting);
    const timer = setTimeout(finish, this.#options.pushTimeoutMs);
    try {
      const { redis } = await this.#ready;
      const owners = (await runScript(redis, SEND, [
        this.#prefix,
        this.#proc,
        request,
        deadline,
        this.#options.streamMaxLen,
        STREAM_TTL_MS,
        type,
        ...payload,
        ...ids,
      ])) as string[];
      const remoteOwners = new Set<string>();
      owners.forEach((owner, i) => {
        if (owner === '' || owner === '!') return;
        if (owner === this.#proc) {
          if (self(ids[i]!)) done.add(ids[i]!);
        } else remoteOwners.add(owner);
      });
      waiting.owners = remoteOwners.size;
      if (waiting.answered >= waiting.owners) finish();
    } catch (error) {
      // The entries may have been sent (a timed-out script may still have run): wait for any
      // answer until the deadline rather than fail what may be delivered. Never sent again.
      this.#redisFailed('send a push to another process', error);
      if (this.#closed) finish();
    }
    await settled;
    clearTimeout(timer);
    this.#waiting.delete(request);
    return done;
  }

  async pushGroup(name: string, value: string, data: Buffer, binary: boolean): Promise<void> {
    // This process's members at once; the others read the broadcast.
    for (const id of this.#local.groupMembers(name, value)) this.#local.deliver(id, data, binary, 'group');
    try {
      const { redis } = await this.#ready;
      const key = `${this.#prefix}bc`;
      await redis.xadd(
        key,
        'MAXLEN',
        '~',
        this.#options.streamMaxLen,
        '*',
        'f',
        this.#proc,
        'n',
        `${name}=${value}`,
        'm',
        data,
        'b',
        binary ? '1' : '0',
      );
    } catch (error) {
      this.#redisFailed('broadcast a group push', error);
    }
  }

  // ---- what the stream reader hands on ----

  #onEntries(role: StreamRole, entries: StreamEntry[]): void {
    if (role === 'replies') for (const [, fields] of entries) this.#onReply(entryFields(fields));
    else if (role === 'inbox') void this.#onInbox(entries);
    else for (const [, fields] of entries) this.#onBroadcast(entryFields(fields));
  }

  #onReply(fields: Map<string, Buffer>): void {
    const waiting = this.#waiting.get(fields.get('r')?.toString() ?? '');
    if (waiting === undefined) return; // answered after its deadline: already failed
    for (const id of lines(fields.get('k'))) waiting.done.add(id);
    waiting.answered += 1;
    if (waiting.owners >= 0 && waiting.answered >= waiting.owners) waiting.finish();
  }

  /** Delivers (or applies) what other processes sent, and answers each sender in one pipeline. */
  #onInbox(entries: StreamEntry[]): Promise<void> {
    const answers: [string, string, string][] = [];
    const groupChanges: Promise<unknown>[] = [];
    const now = Date.now() + this.#clockOffset;
    for (const [, raw] of entries) {
      const fields = entryFields(raw);
      const from = fields.get('f')?.toString() ?? '';
      const request = fields.get('r')?.toString() ?? '';
      const ids = lines(fields.get('s'));
      const type = fields.get('t')?.toString();
      if (type !== 'p' && type !== 'g') continue; // a wake-up
      // Past its deadline (less a margin for the answer's way back) the sender has failed it:
      // delivering it now would deliver a push reported failed.
      if (now > Number(fields.get('d')?.toString()) - this.#guardMs()) continue;
      if (type === 'g') {
        const [action, name, value] = ['a', 'b', 'c'].map((f) => fields.get(f)?.toString() ?? '');
        groupChanges.push(
          this.#applyGroup(action === 'leave' ? 'leave' : 'join', ids, name!, value!).then((notHere) => {
            const skip = new Set(notHere);
            answers.push([from, request, ids.filter((id) => !skip.has(id)).join('\n')]);
          }),
        );
        continue;
      }
      const data = fields.get('a') ?? Buffer.alloc(0);
      const binary = fields.get('b')?.toString() === '1';
      const via = (fields.get('c')?.toString() ?? 'session') as PushVia;
      const ok = ids.filter((id) => this.#local.deliver(id, data, binary, via));
      answers.push([from, request, ok.join('\n')]);
    }
    return Promise.all(groupChanges).then(() => this.#answer(answers));
  }

  /** The margin before an entry's deadline after which it is no longer delivered. */
  #guardMs(): number {
    return Math.min(100, Math.round(this.#options.pushTimeoutMs / 4));
  }

  async #answer(answers: [string, string, string][]): Promise<void> {
    if (answers.length === 0) return;
    try {
      const { redis } = await this.#ready;
      await Promise.all(
        answers.map(async ([to, request, ok]) => {
          const key = `${this.#prefix}re:${to}`;
          await redis.xadd(key, 'MAXLEN', '~', this.#options.streamMaxLen, '*', 'r', request, 'k', ok);
          await redis.pexpire(key, STREAM_TTL_MS);
        }),
      );
    } catch (error) {
      this.#redisFailed('answer a push from another process', error);
    }
  }

  #onBroadcast(fields: Map<string, Buffer>): void {
    if (fields.get('f')?.toString() === this.#proc) return; // delivered when sent
    const group = fields.get('n')?.toString() ?? '';
    const at = group.indexOf('=');
    if (at < 0) return;
    const data = fields.get('m') ?? Buffer.alloc(0);
    const binary = fields.get('b')?.toString() === '1';
    for (const id of this.#local.groupMembers(group.slice(0, at), group.slice(at + 1)))
      this.#local.deliver(id, data, binary, 'group');
  }

  // ---- connection ids ----

  async issueConnId(): Promise<string> {
    const id = this.#fallbackIds.issue();
    try {
      const { redis } = await this.#ready;
      await redis.set(`${this.#prefix}cid:${id}`, 'w', 'PX', CONN_ID_TTL_MS);
    } catch (error) {
      // Good on this process only (kept by the fallback): say so once.
      this.#redisFailed('share a connection id', error);
    }
    return id;
  }

  async takeConnId(id: string, requireIssued: boolean): Promise<ConnIdCheck> {
    try {
      const { redis } = await this.#ready;
      const check = (await runScript(redis, TAKE_CONN_ID, [
        this.#prefix,
        id,
        requireIssued ? '1' : '0',
        CONN_ID_TTL_MS,
      ])) as ConnIdCheck;
      this.#fallbackIds.take(id, false);
      return check;
    } catch (error) {
      this.#redisFailed('check a connection id', error);
      return this.#fallbackIds.take(id, requireIssued);
    }
  }

  // ---- stopping ----

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    clearInterval(this.#timer);
    let ready: { redis: DirectoryRedis; reader: StreamReader } | undefined;
    try {
      ready = await this.#ready;
    } catch {
      // Never connected: nothing was written.
    }
    if (ready !== undefined) {
      const { redis, reader } = ready;
      redis.off?.('ready', this.#onReady);
      await this.#beating?.catch(() => undefined);
      const inbox = `${this.#prefix}in:${this.#proc}`;
      const from = reader.lastId(inbox);
      await reader.stop();
      try {
        // No new push is routed here once the records are gone; then what is already in the
        // inbox is answered (as failed: the sockets are closed) so no sender waits for it.
        while ((await runScript(redis, LEAVE, [this.#prefix, this.#proc, 1000])) !== 0);
        const rest = await redis.xreadBuffer('COUNT', 10_000, 'STREAMS', inbox, from);
        const entries = rest?.[0]?.[1] ?? [];
        if (entries.length > 0) await this.#onInbox(entries);
        await redis.del(inbox);
      } catch (error) {
        this.#redisFailed('remove its records', error);
      }
    }
    for (const waiting of this.#waiting.values()) waiting.finish();
  }
}

/** A process id: the machine and pid, for people reading Redis, and a random part. */
function newProcessId(): string {
  return `${hostname()}:${process.pid}:${Math.random().toString(36).slice(2, 10)}`;
}

/** REGISTER's four arguments for one session. */
function registerArgs(info: SessionInfo): string[] {
  return [info.sessionId, info.openid, JSON.stringify({ ...info, groups: [] }), info.groups.join('\n')];
}

/** A session from its record's info and groups; undefined when the record is damaged. */
function sessionFrom(info: string, groups: string): SessionInfo | undefined {
  try {
    const parsed = JSON.parse(info) as SessionInfo;
    return { ...parsed, groups: groups === '' ? [] : groups.split('\n') };
  } catch {
    return undefined;
  }
}

function lines(value: Buffer | undefined): string[] {
  const text = value?.toString() ?? '';
  return text === '' ? [] : text.split('\n');
}
