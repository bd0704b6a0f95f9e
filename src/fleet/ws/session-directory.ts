/**
 * The seam between one process's WebSocket gateway and wherever its sessions may be known to
 * other processes: the `SessionDirectory` a gateway reports its sessions to and the push API
 * asks (which sessions an openid or a group has, who owns a session, delivering a push), and
 * the `LocalSessions` a directory calls back into its own process's gateway. Types only: the
 * single-process directory is `local-directory.ts`; `cloudfn start --workers` has one through
 * the primary, a Redis fleet one on `CLOUDFN_REDIS_URL` (docs/gateway.md#production-mode).
 */
import type { ConnIdCheck } from '../../platform/gateway/conn-ids.js';
import type { PushVia, SessionInfo } from '../../platform/gateway/protocol.js';

export type { ConnIdCheck, PushVia, SessionInfo };

/**
 * Where sessions live when they may belong to other processes. One per process and gateway;
 * every method may be called at any time after the directory is made, and none throws for a
 * session it does not know (an unknown session is reported, as failed or absent).
 */
export interface SessionDirectory {
  /**
   * A session of this process exists: called when the client's upgrade is taken, before its
   * connect call, so a push from the connect function finds it (frames wait until it opens).
   */
  added(info: SessionInfo): Promise<void>;
  /** A session of this process ended: refused by connect, or closed by either side. */
  removed(sessionId: string): Promise<void>;
  /**
   * Puts sessions into the group `name`=`value` (or takes them out), wherever they live; the
   * owner's gateway is told (`LocalSessions.group`). Resolves with the ids that are not open.
   */
  grouped(action: 'join' | 'leave', sessionIds: readonly string[], name: string, value: string): Promise<string[]>;
  /** The session ids of a user's open connections, on every process. */
  sessionsOf(openid: string): Promise<string[]>;
  /** One open session, wherever it lives, with its path, openid and groups; undefined when none. */
  query(sessionId: string): Promise<SessionInfo | undefined>;
  /** The session ids in a group, on every process. */
  groupMembers(name: string, value: string): Promise<string[]>;
  /**
   * Delivers `data` to each session wherever it lives: in process for this process's own,
   * through its owner for the others. Resolves, within the directory's deadline, with the ids
   * not delivered (unknown, closed, owner gone or silent, the client's queue full). At most
   * once, never retried.
   */
  pushSessions(sessionIds: readonly string[], data: Buffer, binary: boolean, via: PushVia): Promise<string[]>;
  /** One broadcast to the group's members on every process; resolves at once, as the platform answers `data: ""`. */
  pushGroup(name: string, value: string, data: Buffer, binary: boolean): Promise<void>;
  /** A new single-use connection id (`/ws/get_conn_id`), good on any process. */
  issueConnId(): Promise<string>;
  /**
   * Takes `id` for an upgrade: `ok` once, `used` after; `unknown` when `requireIssued` and no
   * process issued it.
   */
  takeConnId(id: string, requireIssued: boolean): Promise<ConnIdCheck>;
  /**
   * This process stops: its records are removed and what waits for it is answered (as failed
   * when it can no longer be delivered). Called after the gateway closed its sockets.
   */
  close(): Promise<void>;
}

/** What a directory calls back into its process's gateway. */
export interface LocalSessions {
  /** Sends to one session of this process; false when it is not here, closed, or its queue is full (then closed 4009). */
  deliver(sessionId: string, data: Buffer, binary: boolean, via: PushVia): boolean;
  /** Group membership of this process's sessions; answers the ids that are not here. */
  group(action: 'join' | 'leave', sessionIds: readonly string[], name: string, value: string): string[];
  /** One session of this process (pending or open), undefined when not here. */
  session(sessionId: string): SessionInfo | undefined;
  /** This process's session ids of a user. */
  sessionsOf(openid: string): string[];
  /** This process's session ids in a group. */
  groupMembers(name: string, value: string): string[];
  /** Every session of this process, groups included: what a directory re-registers after losing its records. */
  list(): SessionInfo[];
  /** A session of a dead process: calls the function's disconnect for it, once (code 1006). */
  orphaned(info: SessionInfo): Promise<void>;
}

/**
 * Makes the directory of one gateway, given that gateway: the one place a process's gateway
 * gets its directory (src/fleet/ws/pick-directory.ts picks which).
 */
export type DirectoryFactory = (local: LocalSessions) => SessionDirectory;
