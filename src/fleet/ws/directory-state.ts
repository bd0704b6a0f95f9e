/**
 * What the parts of the Redis session directory share (redis-directory.ts and the modules it
 * delegates to: directory-heartbeat.ts, directory-inbox.ts, directory-groups.ts): this
 * process's id and key prefix in Redis, its settings, the connection once made, whether the
 * records must be written again, Redis' clock, the one warning while Redis does not answer,
 * and the shape of a session's record.
 */
import { hostname } from 'node:os';
import type { FleetWarn } from '../connect.js';
import type { DirectoryOptions } from './directory-options.js';
import type { DirectoryRedis } from './run-script.js';
import type { LocalSessions, SessionInfo } from './session-directory.js';
import type { StreamReader } from './stream-reader.js';

/** The directory's connections: the shared one, and the blocking reader's. */
export interface Connected {
  redis: DirectoryRedis;
  reader: StreamReader;
}

/** The state of one process's Redis directory, read and written by each of its parts. */
export class DirectoryState {
  readonly local: LocalSessions;
  readonly options: DirectoryOptions;
  readonly warn: FleetWarn;
  readonly prefix: string;
  /** This process in Redis; a new one after it was reaped. */
  proc = newProcessId();
  /** Set once by the directory, right after this state is made. */
  ready!: Promise<Connected>;
  /** The records must be written again (Redis lost them, or a write failed). */
  mustRegister = false;
  closed = false;
  /** Redis' clock minus this one's, measured at each heartbeat: reads an inbox entry's deadline. */
  clockOffset = 0;
  #redisDown = false;

  constructor(local: LocalSessions, options: DirectoryOptions, warn: FleetWarn, prefix: string) {
    this.local = local;
    this.options = options;
    this.warn = warn;
    this.prefix = prefix;
  }

  /** How long a liveness key lives: three heartbeats. */
  ttl(): number {
    return this.options.heartbeatMs * 3;
  }

  /** Says once that Redis does not answer, until `redisAnswered`. */
  redisFailed(what: string, error: unknown): void {
    if (this.#redisDown) return;
    this.#redisDown = true;
    this.warn(
      `the session directory could not ${what} (${(error as Error).message}); pushes to other processes fail until Redis answers`,
    );
  }

  /** Redis answered a heartbeat: says so when it had not. */
  redisAnswered(): void {
    if (this.#redisDown) {
      this.#redisDown = false;
      this.warn('the session directory reaches Redis again');
    }
  }
}

/** A process id: the machine and pid, for people reading Redis, and a random part. */
export function newProcessId(): string {
  return `${hostname()}:${process.pid}:${Math.random().toString(36).slice(2, 10)}`;
}

/** REGISTER's four arguments for one session. */
export function registerArgs(info: SessionInfo): string[] {
  return [info.sessionId, info.openid, JSON.stringify({ ...info, groups: [] }), info.groups.join('\n')];
}

/** A session from its record's info and groups; undefined when the record is damaged. */
export function sessionFrom(info: string, groups: string): SessionInfo | undefined {
  try {
    const parsed = JSON.parse(info) as SessionInfo;
    return { ...parsed, groups: groups === '' ? [] : groups.split('\n') };
  } catch {
    return undefined;
  }
}
