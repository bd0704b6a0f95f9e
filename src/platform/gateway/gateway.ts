/**
 * The local WebSocket gateway, without any transport: it keeps the connections (sessions),
 * their groups and their users, calls the function as the platform's gateway does (connect and
 * disconnect as GETs, each client message as a POST, with the common headers and a logid per
 * call), and delivers pushes. The dev server binds it to real sockets (ws-server.ts);
 * `cloudfn/testing` binds it to in-memory clients. Every step is reported to its observers.
 * The calls themselves are made in function-call.ts; the users' and groups' indexes are kept in
 * session-index.ts.
 */
import { randomInt } from 'node:crypto';
import { failureText } from './envelope.js';
import { LocalDirectory } from '../../fleet/ws/local-directory.js';
import type { DirectoryFactory, LocalSessions, SessionDirectory } from '../../fleet/ws/session-directory.js';
import { type AppAnswer, type AppCaller, callFunction, type GatewayIdentity } from './function-call.js';
import { CLOSE_CODES, type GatewayEvent } from './names.js';
import type { GatewayActivity, PushVia, SessionInfo } from './protocol.js';
import { groupKey, SessionIndex } from './session-index.js';

export { type AppAnswer, type AppCall, type AppCaller, type GatewayIdentity, injectCaller } from './function-call.js';

/** Where a client's frames go, and how it is closed; the transport provides one per connection. */
export interface ClientLink {
  /** Sends a frame; `false` when it was not sent (the link then closed the connection), anything else when it was. */
  send(data: Buffer, binary: boolean): unknown;
  close(code: number, reason: string): void;
}

/** A client asking to connect. */
export interface OpenRequest {
  path: string;
  openid: string;
  ip: string;
  /** The live room's headers to send on each call (names of ROOM_HEADERS). */
  room?: Readonly<Record<string, string>>;
}

/** What `open` answered: a session to attach, or the function's refusal. */
export type OpenResult =
  | { ok: true; sessionId: string; answer: AppAnswer; logid: string }
  | { ok: false; answer: AppAnswer; logid: string };

/** Options of a gateway. */
export interface GatewayOptions {
  /** Sends calls to the functions. */
  call: AppCaller;
  identity: GatewayIdentity;
  /** The function serving a path, recorded on the session (reload closes its connections). @default none */
  functionOf?: (path: string) => string | undefined;
  /**
   * Where sessions live beyond this gateway: made once with the gateway, which reports each
   * session to it; the push API asks it. @default the gateway alone (LocalDirectory)
   */
  directory?: DirectoryFactory;
}

interface Session {
  info: SessionInfo;
  link: ClientLink | undefined;
  /** Frames pushed before the transport attached the link (a push from the connect handler). */
  queued: { data: Buffer; binary: boolean }[];
  /** Uplinks go to the function one at a time, in order. */
  chain: Promise<void>;
  closed: boolean;
  /** Connect answered 2xx. */
  accepted: boolean;
  /** The keys of its groups in `#index`. */
  groups: Set<string>;
}

/** The data of a frame as the activity log shows it: text, or base64 for bytes. */
function shown(data: Buffer, binary: boolean): string {
  return binary ? data.toString('base64') : data.toString('utf8');
}

/** Keeps connections and groups, and calls the functions for them. */
export class Gateway implements LocalSessions {
  readonly #options: GatewayOptions;
  readonly #sessions = new Map<string, Session>();
  readonly #index = new SessionIndex();
  readonly #observers = new Set<(activity: GatewayActivity) => void>();
  /**
   * Session ids count up from a time-based start: digits, as the platform's, and exact as JSON
   * numbers. The start has a random part (up to 2^30, the sum stays below 2^53): the processes
   * of a fleet share one id space in Redis, and two of them started n ms apart, counting up from
   * the time alone, give the same ids after 100 × n sessions.
   */
  #nextId = Date.now() * 100 + randomInt(2 ** 30);
  /** Where sessions live, on this process and others: the push API's and the conn ids' one source. */
  readonly directory: SessionDirectory;

  constructor(options: GatewayOptions) {
    this.#options = options;
    this.directory = (options.directory ?? ((local) => new LocalDirectory(local)))(this);
  }

  /** The ids sent on every call. */
  get identity(): GatewayIdentity {
    return this.#options.identity;
  }

  /** Adds an observer of every activity; returns how to remove it. */
  observe(observer: (activity: GatewayActivity) => void): () => void {
    this.#observers.add(observer);
    return () => void this.#observers.delete(observer);
  }

  /** The connections whose connect was answered 2xx, oldest first. */
  sessions(): SessionInfo[] {
    return [...this.#sessions.values()]
      .filter((s) => s.accepted)
      .map((s) => ({ ...s.info, groups: [...s.info.groups] }));
  }

  /** One session, open or pending. */
  session(sessionId: string): SessionInfo | undefined {
    const found = this.#sessions.get(sessionId);
    return found === undefined ? undefined : { ...found.info };
  }

  /** The session ids of a user's open connections. */
  sessionsOf(openid: string): string[] {
    return this.#index.sessionsOf(openid);
  }

  /** The session ids in a group. */
  groupMembers(name: string, value: string): string[] {
    return this.#index.groupMembers(name, value);
  }

  /** Every session, pending ones included, with a copy of its groups. */
  list(): SessionInfo[] {
    return [...this.#sessions.values()].map((s) => ({ ...s.info, groups: [...s.info.groups] }));
  }

  /** Sends to one session (the directory's delivery); false when it is not open here. */
  deliver(sessionId: string, data: Buffer, binary: boolean, via: PushVia): boolean {
    return this.send(sessionId, data, binary, via);
  }

  /**
   * A session whose process died: its function gets the disconnect call this gateway makes for
   * it (1006, as for a client gone without a close frame).
   */
  async orphaned(info: SessionInfo): Promise<void> {
    const { answer, logid } = await this.#callFunction(info, 'disconnect');
    const reason = 'its server process stopped answering';
    this.#emit({ type: 'disconnect', sessionId: info.sessionId, code: 1006, reason, status: answer.status, logid });
  }

  #emit(activity: GatewayActivity): void {
    for (const observer of this.#observers) observer(activity);
  }

  /** A new session id, unique in this gateway. */
  #newSessionId(): string {
    this.#nextId += 1;
    return String(this.#nextId);
  }

  #callFunction(
    info: SessionInfo,
    event: GatewayEvent,
    body?: { data: Buffer; binary: boolean },
  ): Promise<{ answer: AppAnswer; logid: string }> {
    return callFunction(this.#options.call, this.#options.identity, info, event, body);
  }

  /**
   * Calls connect for a new client. A 2xx answer makes a pending session (pushes wait for
   * `attach`); any other refuses the client with that answer.
   * @example const opened = await gateway.open({ path: '/websocket_callback', openid: 'ann', ip: '127.0.0.1' })
   */
  async open(request: OpenRequest): Promise<OpenResult> {
    const info: SessionInfo = {
      sessionId: this.#newSessionId(),
      openid: request.openid,
      path: request.path,
      functionName: this.#options.functionOf?.(request.path.split('?')[0] ?? request.path),
      ip: request.ip,
      connectedAt: Date.now(),
      groups: [],
      ...(request.room === undefined ? {} : { room: request.room }),
    };
    const session: Session = {
      info,
      link: undefined,
      queued: [],
      chain: Promise.resolve(),
      closed: false,
      accepted: false,
      groups: new Set(),
    };
    this.#sessions.set(info.sessionId, session);
    if (info.openid !== '') this.#index.addUser(info.openid, info.sessionId);
    try {
      await this.directory.added({ ...info, groups: [] });
    } catch (error) {
      // Without its record a push to the session could not find it: the client is refused.
      this.#forget(session);
      const detail = error instanceof Error ? error.message : String(error);
      const body = Buffer.from(failureText(50300, `the session directory failed: ${detail}; retry`));
      return {
        ok: false,
        answer: { status: 503, headers: { 'content-type': 'application/json; charset=utf-8' }, body },
        logid: '',
      };
    }
    const { answer, logid } = await this.#callFunction(info, 'connect');
    if (answer.status >= 200 && answer.status < 300) {
      session.accepted = true;
      this.#emit({ type: 'connect', session: { ...info }, status: answer.status, logid });
      return { ok: true, sessionId: info.sessionId, answer, logid };
    }
    this.#forget(session);
    this.#emit({
      type: 'refused',
      path: info.path,
      openid: info.openid,
      status: answer.status,
      body: answer.body.toString('utf8'),
      logid,
    });
    return { ok: false, answer, logid };
  }

  /** Gives an opened session its client; frames pushed meanwhile are sent now. */
  attach(sessionId: string, link: ClientLink): void {
    const session = this.#sessions.get(sessionId);
    if (session === undefined || session.closed) {
      link.close(CLOSE_CODES.normal, 'closed before it opened');
      return;
    }
    session.link = link;
    for (const frame of session.queued.splice(0)) if (link.send(frame.data, frame.binary) === false) break;
  }

  /**
   * A message from the client: POSTed to the function, after the ones before it were answered.
   * Resolves with the function's answer.
   */
  uplink(sessionId: string, data: Buffer, binary: boolean): Promise<AppAnswer | undefined> {
    const session = this.#sessions.get(sessionId);
    if (session === undefined || session.closed) return Promise.resolve(undefined);
    const result = session.chain.then(async () => {
      const { answer, logid } = await this.#callFunction(session.info, 'uplink', { data, binary });
      this.#emit({ type: 'uplink', sessionId, data: shown(data, binary), binary, status: answer.status, logid });
      return answer;
    });
    session.chain = result.then(
      () => undefined,
      () => undefined,
    );
    return result;
  }

  /**
   * The client went away (or the gateway closes it): the session ends and the function gets
   * its disconnect call, after the uplinks still queued.
   */
  async closed(sessionId: string, code: number, reason: string): Promise<void> {
    const session = this.#sessions.get(sessionId);
    if (session === undefined || session.closed) return;
    this.#forget(session);
    await session.chain;
    const { answer, logid } = await this.#callFunction(session.info, 'disconnect');
    this.#emit({ type: 'disconnect', sessionId, code, reason, status: answer.status, logid });
  }

  /**
   * Resolves once every uplink sent to a function so far has been answered, or after
   * `limitMs`: a stopping server closes its sockets after the calls in flight.
   */
  async settled(limitMs: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const chains = [...this.#sessions.values()].map((s) => s.chain);
    await Promise.race([
      Promise.all(chains),
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, limitMs);
      }),
    ]);
    clearTimeout(timer);
  }

  /** Closes connections from the gateway's side (each then gets its disconnect call). */
  async close(code: number, reason: string, which: (info: SessionInfo) => boolean = () => true): Promise<void> {
    const closing: Promise<void>[] = [];
    for (const session of [...this.#sessions.values()]) {
      if (session.closed || !which(session.info)) continue;
      session.link?.close(code, reason);
      closing.push(this.closed(session.info.sessionId, code, reason));
    }
    await Promise.all(closing);
  }

  #forget(session: Session): void {
    session.closed = true;
    const { sessionId, openid } = session.info;
    // A directory reports its own failures; a record it keeps past this is its to expire.
    this.directory.removed(sessionId).catch(() => undefined);
    this.#sessions.delete(sessionId);
    this.#index.forget(sessionId, openid, session.groups);
  }

  /** Sends to one session; false when it is not open. */
  send(sessionId: string, data: Buffer, binary: boolean, via: PushVia): boolean {
    const session = this.#sessions.get(sessionId);
    if (session === undefined || session.closed) return false;
    if (session.link === undefined) session.queued.push({ data, binary });
    else if (session.link.send(data, binary) === false) return false;
    this.#emit({ type: 'push', sessionId, data: shown(data, binary), binary, via });
    return true;
  }

  /** Puts sessions into a group (or takes them out); answers the ids that are not open. */
  group(action: 'join' | 'leave', sessionIds: readonly string[], name: string, value: string): string[] {
    const key = groupKey(name, value);
    const label = `${name}=${value}`;
    const failed: string[] = [];
    for (const sessionId of sessionIds) {
      const session = this.#sessions.get(sessionId);
      if (session === undefined || session.closed) {
        failed.push(sessionId);
        continue;
      }
      if (action === 'join') {
        this.#index.join(key, sessionId);
        session.groups.add(key);
        if (!session.info.groups.includes(label)) session.info.groups.push(label);
      } else {
        this.#index.leave(key, sessionId);
        session.groups.delete(key);
        session.info.groups = session.info.groups.filter((g) => g !== label);
      }
      this.#emit({ type: 'group', action, sessionId, group: label });
    }
    return failed;
  }
}

/**
 * A path decoded for the router's function names, or as given when its escapes are malformed.
 * @example safeDecode('/caf%C3%A9') // '/café'
 */
export function safeDecode(path: string): string {
  try {
    return decodeURI(path);
  } catch {
    return path;
  }
}

/** Declared in the console's protocol, which the page imports too. */
export type { GatewayActivity, PushVia, SessionInfo };
