/**
 * The store's lock across processes: a `.lock` file beside the collection files, created with
 * `O_EXCL`, held for one read-change-write (a function's write, an import, a reset, an export),
 * so `cloudfn db` and a running `cloudfn dev` (or `cloudfn start` workers) never write over each
 * other's changes. Reads need no lock: every write renames a whole file into place.
 */
import { randomBytes } from 'node:crypto';
import { closeSync, fstatSync, linkSync, openSync, readFileSync, renameSync, unlinkSync } from 'node:fs';
import { mkdir, open, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { platformError } from '../../errors.js';

/** The lock file's name inside the database folder (not a collection: it does not end in `.json`). */
export const LOCK_FILE = '.lock';

/** How long a writer waits for the lock before it gives up. @default 10000 */
const WAIT_MS = 10_000;
/** A lock older than this is a holder that hung or died on another machine: it is broken. */
const STALE_MS = 30_000;

/** Waits `ms`. Not node:timers/promises: the stand-in is bundled for the platform's Node 14, which lacks it. */
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Whether the process `pid` on this machine is gone. */
function gone(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

/**
 * Removes the lock file when its holder is dead or it is older than STALE_MS; true when removed
 * (or when it was released meanwhile: try again at once).
 *
 * The judgement and the removal concern the same file. It is read synchronously (its text
 * names its holder with a token of its own) and removed by renaming whatever is at the path to
 * a name of our own, then comparing texts: a file that another writer created after the read
 * is put back, never deleted. (Inodes would not do: a freed one is given to the next file.) Asynchronous reads could not do this: on a loaded machine a read
 * finished 800 ms after it began, its holder had released and exited meanwhile, and the
 * removal then took the live lock of a third writer (two writers held it; an update was lost).
 */
function breakStale(file: string): boolean {
  let text: string;
  let mtimeMs: number;
  try {
    const fd = openSync(file, 'r');
    try {
      mtimeMs = fstatSync(fd).mtimeMs;
      text = readFileSync(fd, 'utf8');
    } finally {
      closeSync(fd);
    }
  } catch {
    return true;
  }
  const pid = Number(text.split(' ')[0]);
  const dead = Number.isInteger(pid) && pid > 0 && pid !== process.pid && gone(pid);
  if (!dead && Date.now() - mtimeMs < STALE_MS) return false;
  const grave = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.broken`;
  try {
    renameSync(file, grave);
  } catch {
    return true;
  }
  if (readFileSync(grave, 'utf8') !== text) {
    // A live writer's lock: put it back (unless yet another writer holds the path now).
    try {
      linkSync(grave, file);
    } catch {
      // The path is taken again; that writer holds the lock.
    }
  }
  unlinkSync(grave);
  return true;
}

/** Removes our own lock file: the one with our text, never one that replaced it. */
function release(file: string, text: string): void {
  try {
    if (readFileSync(file, 'utf8') === text) unlinkSync(file);
  } catch {
    // Gone already (broken as stale after STALE_MS).
  }
}

/**
 * Runs `work` holding the lock of the database folder `dir` (created when missing).
 * @example await withStoreLock(store.dir, () => writeEverything())
 */
export async function withStoreLock<T>(dir: string, work: () => Promise<T>): Promise<T> {
  await mkdir(dir, { recursive: true });
  const file = join(dir, LOCK_FILE);
  const deadline = Date.now() + WAIT_MS;
  // Our lock's text: the pid (for a dead holder's lock to be found), the time, and a token.
  const text = `${process.pid} ${new Date().toISOString()} ${randomBytes(6).toString('hex')}`;
  for (let pause = 1; ; pause = Math.min(pause * 2, 20)) {
    try {
      const handle = await open(file, 'wx');
      try {
        await handle.writeFile(text);
      } finally {
        await handle.close();
      }
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    if (breakStale(file)) continue;
    if (Date.now() > deadline) {
      const holder = await readFile(file, 'utf8').catch(() => 'unknown');
      throw platformError('PLATFORM_DB_LOCKED', file, holder, WAIT_MS);
    }
    await sleep(pause);
  }
  try {
    return await work();
  } finally {
    release(file, text);
  }
}
