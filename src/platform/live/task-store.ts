/**
 * The live rooms' state kept on disk with the rest of the local platform's state
 * (`<data dir>/live/rooms.json`): every task, running or stopped, and each room's anchor as its
 * calls named it, so started tasks survive a dev restart, as the platform's run until stopped.
 * Writes replace the file whole (a temporary file renamed over it); a file that cannot be read is
 * set aside (`rooms.json.bad`) and the rooms start empty, with the reason kept for the log.
 */
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { isLiveMsgType } from './messages.js';
import type { LiveTask, RoomsSnapshot } from './rooms.js';

/** Where the rooms' state is kept under a data folder. */
export function roomsFile(dataDir: string): string {
  return join(dataDir, 'live', 'rooms.json');
}

function isTask(value: unknown): value is LiveTask {
  const t = value as Partial<LiveTask> | null;
  return (
    typeof t === 'object' &&
    t !== null &&
    typeof t.roomid === 'string' &&
    typeof t.appid === 'string' &&
    typeof t.msgType === 'string' &&
    isLiveMsgType(t.msgType) &&
    typeof t.taskId === 'string' &&
    typeof t.running === 'boolean' &&
    typeof t.startedAt === 'number'
  );
}

function isAnchor(value: unknown): value is RoomsSnapshot['anchors'][number] {
  const a = value as { roomid?: unknown; anchor?: unknown; from?: unknown } | null;
  return (
    typeof a === 'object' &&
    a !== null &&
    typeof a.roomid === 'string' &&
    typeof a.anchor === 'string' &&
    (a.from === 'start_game' || a.from === 'websocket' || a.from === 'token')
  );
}

/** The rooms' store in one file. */
export class RoomsStore {
  readonly #file: string;
  /** Why the file was set aside, when it was. */
  problem: string | undefined;

  constructor(file: string) {
    this.#file = file;
  }

  /** The kept state; undefined when there is none (or it was set aside). */
  load(): RoomsSnapshot | undefined {
    let text: string;
    try {
      text = readFileSync(this.#file, 'utf8');
    } catch {
      return undefined;
    }
    try {
      const parsed = JSON.parse(text) as { tasks?: unknown; anchors?: unknown };
      if (!Array.isArray(parsed.tasks) || !parsed.tasks.every(isTask)) throw new Error('tasks is not a list of tasks');
      const anchors = Array.isArray(parsed.anchors) ? parsed.anchors.filter(isAnchor) : [];
      return { tasks: parsed.tasks, anchors };
    } catch (error) {
      this.problem = `${this.#file} could not be read (${(error as Error).message}); it was moved to rooms.json.bad and the rooms start empty`;
      try {
        renameSync(this.#file, `${this.#file}.bad`);
      } catch {
        // Left in place: the next save replaces it.
      }
      return undefined;
    }
  }

  /**
   * Writes `snapshot` now: a temporary file renamed over the target, so a reader sees the old
   * state or the new. Synchronous, as tasks change rarely (a start or a stop per room and type)
   * and a dev server that stops right after a start must still have it on disk. A failed write
   * is not fatal: the rooms run on in memory.
   */
  save(snapshot: RoomsSnapshot): void {
    const temporary = `${this.#file}.${process.pid}.tmp`;
    try {
      mkdirSync(dirname(this.#file), { recursive: true });
      writeFileSync(temporary, `${JSON.stringify(snapshot, null, 2)}\n`);
      renameSync(temporary, this.#file);
    } catch {
      rmSync(temporary, { force: true });
    }
  }
}
