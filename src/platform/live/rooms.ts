/**
 * The live rooms of the simulator: each room's anchor (the one whose calls named it, or the
 * anchor of a token traded for it), the data
 * tasks started for each (room, message type), as
 * the platform keeps them (one per roomid × appid × msg_type; start and stop are idempotent;
 * status 1 no such task, 2 stopped, 3 running), and sending a room's messages: whole messages
 * from partial ones, refused unless a task of that type runs, then one push of all of them
 * (a JSON array) to the data path through `deliver`. Every push is told to the listeners (the
 * console's stream). Per-instance state: a dev server has one.
 */
import { platformError } from '../errors.js';
import { DEV_LIVE_SECRET, type LiveDataConfig } from './config.js';
import { fillMessages, type LiveMessage, type LiveMsgType, MsgIds } from './messages.js';
import { pushHeaders } from './push-headers.js';

/** Task status as the platform's task/get answers it. */
export const TASK_STATUS = { missing: 1, stopped: 2, running: 3 } as const;

/** One data task. */
export interface LiveTask {
  roomid: string;
  appid: string;
  msgType: LiveMsgType;
  taskId: string;
  running: boolean;
  /** ms since the epoch of the last start. */
  startedAt: number;
}

/** One push, as sent to the data path. */
export interface LivePush {
  path: string;
  headers: Record<string, string>;
  /** The JSON array of messages, as text. */
  body: string;
}

/** What the data path answered. */
export interface DeliveryResult {
  status: number;
  logid: string;
  body: string;
}

/** What sending messages to a room gives: the messages sent and the function's answer. */
export interface SendResult extends DeliveryResult {
  roomid: string;
  msgType: LiveMsgType;
  messages: LiveMessage[];
}

/** Options of `LiveRooms`. */
export interface LiveRoomsOptions {
  /** Sends one push to the function at its path (the dev server writes it into the app). */
  deliver: (push: LivePush) => Promise<DeliveryResult>;
  /** The project's `liveData`, read when a push is made (reloads may change it). */
  config: () => LiveDataConfig | undefined;
  /** The anchor when the config names none (the dev user's room's anchor, else its openid). */
  defaultAnchor: string;
  /** @default Date.now */
  now?: () => number;
  /** Keeps the tasks and anchors across restarts (task-store.ts). @default memory only */
  store?: { load(): RoomsSnapshot | undefined; save(snapshot: RoomsSnapshot): void };
}

/** Where a room's anchor was learnt: a call that named it, or a token traded for the room. */
export type ClaimSource = 'start_game' | 'websocket' | 'token';

/** What a store keeps of the rooms. */
export interface RoomsSnapshot {
  tasks: LiveTask[];
  anchors: { roomid: string; anchor: string; from: ClaimSource }[];
}

/** Where a room's anchor came from: a call that named it or a traded token, else the config or the dev user. */
export type AnchorSource = ClaimSource | 'config' | 'dev user';

/** One room as the console lists it. */
export interface LiveRoomInfo {
  roomid: string;
  anchor: string;
  anchorFrom: AnchorSource;
  tasks: LiveTask[];
}

/** What listeners hear. */
export type LiveEvent =
  | { kind: 'task'; task: LiveTask }
  | { kind: 'push'; roomid: string; msgType: LiveMsgType; messages: LiveMessage[]; status: number; logid: string };

function key(roomid: string, msgType: string): string {
  return `${roomid}\n${msgType}`;
}

export class LiveRooms {
  readonly #options: LiveRoomsOptions;
  readonly #tasks = new Map<string, LiveTask>();
  readonly #ids = new MsgIds();
  readonly #listeners = new Set<(event: LiveEvent) => void>();
  /** The anchor each room's own calls named, and which call. */
  readonly #anchors = new Map<string, { anchor: string; from: ClaimSource }>();
  #nextTask = 1;

  /** Set when the dev server closes: its last stops are not kept, so the tasks run again after a restart. */
  #closing = false;

  constructor(options: LiveRoomsOptions) {
    this.#options = options;
    const kept = options.store?.load();
    for (const task of kept?.tasks ?? []) this.#tasks.set(key(task.roomid, task.msgType), { ...task });
    for (const { roomid, anchor, from } of kept?.anchors ?? []) this.#anchors.set(roomid, { anchor, from });
    this.#nextTask += this.#tasks.size;
  }

  #save(): void {
    if (this.#closing || this.#options.store === undefined) return;
    this.#options.store.save({
      tasks: this.tasks(),
      anchors: [...this.#anchors].map(([roomid, { anchor, from }]) => ({ roomid, anchor, from })),
    });
  }

  #now(): number {
    return this.#options.now?.() ?? Date.now();
  }

  #tell(event: LiveEvent): void {
    for (const listener of this.#listeners) listener(event);
  }

  /** Listens to task changes and pushes; returns how to stop. */
  listen(listener: (event: LiveEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Starts (or keeps running) the task; answers its id, the same on every start. */
  start(roomid: string, appid: string, msgType: LiveMsgType): LiveTask {
    let task = this.#tasks.get(key(roomid, msgType));
    if (task === undefined) {
      task = {
        roomid,
        appid,
        msgType,
        taskId: `${this.#now()}${String(this.#nextTask++).padStart(6, '0')}`,
        running: false,
        startedAt: 0,
      };
      this.#tasks.set(key(roomid, msgType), task);
    }
    if (!task.running) {
      task.running = true;
      task.startedAt = this.#now();
      task.appid = appid;
      this.#tell({ kind: 'task', task: { ...task } });
      this.#save();
    }
    return { ...task };
  }

  /** Stops the task if it runs; a missing one is no error (the platform's stop is idempotent). */
  stop(roomid: string, msgType: LiveMsgType): void {
    const task = this.#tasks.get(key(roomid, msgType));
    if (task === undefined || !task.running) return;
    task.running = false;
    this.#tell({ kind: 'task', task: { ...task } });
    this.#save();
  }

  /** The task's status: 1 no such task, 2 stopped, 3 running. */
  status(roomid: string, msgType: LiveMsgType): number {
    const task = this.#tasks.get(key(roomid, msgType));
    return task === undefined ? TASK_STATUS.missing : task.running ? TASK_STATUS.running : TASK_STATUS.stopped;
  }

  /**
   * Stops every task (the dev server's close): runs of scripted traffic end with it. The kept
   * state still has them running, so a restart resumes them, as the platform's never stopped.
   */
  stopAll(): void {
    this.#closing = true;
    for (const task of this.#tasks.values()) this.stop(task.roomid, task.msgType);
  }

  /** Every task, running or stopped. */
  tasks(): LiveTask[] {
    return [...this.#tasks.values()].map((task) => ({ ...task }));
  }

  /**
   * Records the anchor of a room, as a call carrying `X-Room-ID` and `X-Anchor-OpenID` names it
   * (the start_game call that started its tasks, or the anchor's WebSocket); the latest wins.
   */
  claim(roomid: string, anchor: string, from: ClaimSource): void {
    if (roomid === '' || anchor === '') return;
    const before = this.#anchors.get(roomid);
    this.#anchors.set(roomid, { anchor, from });
    if (before?.anchor !== anchor || before.from !== from) this.#save();
  }

  /**
   * Records the anchor of a token traded for the room (webcastmate/info): a game that starts
   * the room from a token, without the room's headers, pushes to that anchor. An anchor the
   * room already has keeps where it was learnt.
   */
  claimFromToken(roomid: string, anchor: string): void {
    if (this.#anchors.get(roomid)?.anchor === anchor) return;
    this.claim(roomid, anchor, 'token');
  }

  /** Records the anchor a WebSocket's room headers (`x-room-id`, `x-anchor-openid`) name. */
  claimFrom(room: Readonly<Record<string, string>>): void {
    const roomid = room['x-room-id'];
    const anchor = room['x-anchor-openid'];
    if (roomid !== undefined && anchor !== undefined) this.claim(roomid, anchor, 'websocket');
  }

  /** The anchor a room's pushes name, and where it came from. */
  anchorOf(roomid?: string): { anchor: string; from: AnchorSource } {
    const claimed = roomid === undefined ? undefined : this.#anchors.get(roomid);
    if (claimed !== undefined) return claimed;
    const configured = this.#options.config()?.anchorOpenid;
    return configured !== undefined
      ? { anchor: configured, from: 'config' }
      : { anchor: this.#options.defaultAnchor, from: 'dev user' };
  }

  /** The anchor a room's pushes name (the fallback of a room that never said, without one). */
  anchor(roomid?: string): string {
    return this.anchorOf(roomid).anchor;
  }

  /** Every room that has a task or a known anchor, by room id. */
  rooms(): LiveRoomInfo[] {
    const ids = new Set([...this.#anchors.keys(), ...[...this.#tasks.values()].map((t) => t.roomid)]);
    return [...ids].sort().map((roomid) => {
      const { anchor, from } = this.anchorOf(roomid);
      const tasks = this.tasks().filter((t) => t.roomid === roomid);
      return { roomid, anchor, anchorFrom: from, tasks };
    });
  }

  /**
   * Whole messages of `msgType` from `partial` (an object or an array), checked against a
   * running task (`PLATFORM_LIVE_NO_TASK` when none) and the config (`PLATFORM_LIVE_NO_PATH`).
   * Nothing is sent when either fails.
   */
  prepare(roomid: string, msgType: LiveMsgType, partial: unknown): { push: LivePush; messages: LiveMessage[] } {
    const task = this.#tasks.get(key(roomid, msgType));
    if (task === undefined || !task.running) {
      const started = this.tasks().filter((t) => t.running);
      throw platformError(
        'PLATFORM_LIVE_NO_TASK',
        roomid,
        msgType,
        started.length === 0 ? 'none' : started.map((t) => `${t.roomid} ${t.msgType}`).join(', '),
      );
    }
    const config = this.#options.config();
    if (config === undefined) throw platformError('PLATFORM_LIVE_NO_PATH');
    const now = this.#now();
    const messages = fillMessages(msgType, partial, { ids: this.#ids, now }) as LiveMessage[];
    const body = JSON.stringify(messages);
    const headers = pushHeaders({
      roomid,
      msgType,
      anchorOpenid: this.anchor(roomid),
      body,
      secret: config.secret ?? DEV_LIVE_SECRET,
      now,
    });
    return { push: { path: config.path, headers, body }, messages };
  }

  /**
   * Sends `partial` messages to the room's data path as one push.
   * @example await rooms.send('7001', 'live_comment', [{ content: 'hi' }])
   */
  async send(roomid: string, msgType: LiveMsgType, partial: unknown): Promise<SendResult> {
    const { push, messages } = this.prepare(roomid, msgType, partial);
    const answer = await this.#options.deliver(push);
    this.#tell({ kind: 'push', roomid, msgType, messages, status: answer.status, logid: answer.logid });
    return { ...answer, roomid, msgType, messages };
  }
}
