/**
 * Notices changes to the store's files from any process (a function's write, `cloudfn db`, the
 * console) by comparing the folder's names, sizes and modification times every
 * `intervalMs`: polling, because the folder may not exist yet and fs.watch does not follow a
 * folder created later. The timer is unref'd: it never keeps a process alive.
 */
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { LOCK_FILE } from './lock.js';

/** A running watch. */
export interface StoreWatch {
  close(): void;
}

/** What the collection files look like now, as one string. */
function signature(dir: string): string {
  let names: string[];
  try {
    names = readdirSync(dir).filter((name) => name.endsWith('.json') && name !== LOCK_FILE);
  } catch {
    return '';
  }
  return names
    .sort()
    .map((name) => {
      try {
        const info = statSync(join(dir, name));
        return `${name}:${info.size}:${info.mtimeMs}`;
      } catch {
        return name;
      }
    })
    .join('|');
}

/**
 * Calls `onChange` once per poll in which the collection files under `<dataDir>/database/` changed.
 * @example const watch = watchStore(dataDir, () => hub.publish('database', { at: Date.now() }));
 */
export function watchStore(dataDir: string, onChange: () => void, options: { intervalMs?: number } = {}): StoreWatch {
  const dir = join(dataDir, 'database');
  let last = signature(dir);
  const timer = setInterval(() => {
    const now = signature(dir);
    if (now === last) return;
    last = now;
    onChange();
  }, options.intervalMs ?? 250);
  timer.unref();
  return { close: () => clearInterval(timer) };
}
