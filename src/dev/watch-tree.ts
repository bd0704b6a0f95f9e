/**
 * Watching folders for the dev server: one `fs.watch` per folder (inotify on Linux, FSEvents on
 * macOS), so a save is seen within a millisecond, unlike polling. Recursive watching is done
 * here rather than with `{ recursive: true }`, whose Linux support in Node 20 is young; folders
 * created or moved in later are watched as they appear, and removed ones are let go.
 */
import { readdirSync, statSync, watch, type FSWatcher } from 'node:fs';
import { join, sep } from 'node:path';

/** Folder names never watched: dependencies, build output, hidden folders. */
function skipped(name: string): boolean {
  return name === 'node_modules' || name.startsWith('.');
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** Watches folders and reports the path of every entry that changed, appeared or went away. */
export class TreeWatcher {
  readonly #watchers = new Map<string, { watcher: FSWatcher; tree: boolean }>();
  readonly #onChange: (path: string) => void;
  #closed = false;

  /**
   * @param onChange called with the absolute path of each changed entry (many times per save)
   * @example const w = new TreeWatcher((path) => console.log(path)); w.watchTree('/srv/app/functions')
   */
  constructor(onChange: (path: string) => void) {
    this.#onChange = onChange;
  }

  /** Watches `dir` and every folder below it (skipping node_modules and dot folders). */
  watchTree(dir: string): void {
    this.#watch(dir, true);
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) if (entry.isDirectory() && !skipped(entry.name)) this.watchTree(join(dir, entry.name));
  }

  /** Watches the entries of `dir` only (a folder holding a helper outside functions/). */
  watchDir(dir: string): void {
    this.#watch(dir, false);
  }

  /** Whether `dir` is watched. */
  has(dir: string): boolean {
    return this.#watchers.has(dir);
  }

  #watch(dir: string, tree: boolean): void {
    if (this.#closed) return;
    const known = this.#watchers.get(dir);
    if (known !== undefined) {
      known.tree ||= tree;
      return;
    }
    let watcher: FSWatcher;
    try {
      watcher = watch(dir, { persistent: false }, (type, filename) => this.#event(dir, type, filename));
    } catch {
      return;
    }
    // A watched folder that is removed reports an error on some systems: stop watching it.
    watcher.on('error', () => this.#unwatch(dir));
    this.#watchers.set(dir, { watcher, tree });
  }

  #event(dir: string, type: string, filename: string | Buffer | null): void {
    if (filename === null) {
      this.#onChange(dir);
      return;
    }
    const full = join(dir, filename.toString());
    if (type === 'rename') {
      if (isDirectory(full)) {
        if (this.#watchers.get(dir)?.tree === true && !skipped(filename.toString())) this.watchTree(full);
      } else {
        for (const watched of [...this.#watchers.keys()]) {
          if ((watched === full || watched.startsWith(full + sep)) && !isDirectory(watched)) this.#unwatch(watched);
        }
      }
    }
    this.#onChange(full);
  }

  #unwatch(dir: string): void {
    this.#watchers.get(dir)?.watcher.close();
    this.#watchers.delete(dir);
  }

  /** Stops every watcher. */
  close(): void {
    this.#closed = true;
    for (const { watcher } of this.#watchers.values()) watcher.close();
    this.#watchers.clear();
  }
}
