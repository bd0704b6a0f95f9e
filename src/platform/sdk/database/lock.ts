/**
 * The store's lock across processes: a `.lock` file beside the collection files, created with
 * `O_EXCL`, held for one read-change-write (a function's write, an import, a reset, an export),
 * so `cloudfn db` and a running `cloudfn dev` (or `cloudfn start` workers) never write over each
 * other's changes. Reads need no lock: every write renames a whole file into place.
 */
import { mkdir, open, readFile, rm, stat } from 'node:fs/promises';
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

/** Removes the lock file when its holder is dead or it is older than STALE_MS; true when removed. */
async function breakStale(file: string): Promise<boolean> {
  try {
    const [text, info] = await Promise.all([readFile(file, 'utf8'), stat(file)]);
    const pid = Number(text.split(' ')[0]);
    const dead = Number.isInteger(pid) && pid > 0 && pid !== process.pid && gone(pid);
    if (!dead && Date.now() - info.mtimeMs < STALE_MS) return false;
    await rm(file, { force: true });
    return true;
  } catch {
    // Released between our attempts: try again at once.
    return true;
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
  for (let pause = 1; ; pause = Math.min(pause * 2, 20)) {
    try {
      const handle = await open(file, 'wx');
      await handle.writeFile(`${process.pid} ${new Date().toISOString()}`);
      await handle.close();
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    if (await breakStale(file)) continue;
    if (Date.now() > deadline) {
      const holder = await readFile(file, 'utf8').catch(() => 'unknown');
      throw platformError('PLATFORM_DB_LOCKED', file, holder, WAIT_MS);
    }
    await sleep(pause);
  }
  try {
    return await work();
  } finally {
    await rm(file, { force: true });
  }
}
