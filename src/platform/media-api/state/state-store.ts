/**
 * `StateStore`: loads `<dataDir>/state.json` and writes it back, coalesced and atomic,
 * after each change.
 */
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomic } from './atomic-file.js';
import { platformError } from '../../errors.js';
import type { PlatformState } from './state.js';

/** Name of the metadata file inside the data folder. */
export const STATE_FILE = 'state.json';

function emptyState(): PlatformState {
  return {
    version: 1,
    linkSecret: randomBytes(32).toString('base64url'),
    videos: {},
    jobs: {},
    runs: {},
    tokens: {},
    plays: [],
  };
}

/**
 * Holds the state in memory and writes it to `<data>/state.json` after each change.
 * Writes are coalesced: many changes in one tick give one write, and a change made while
 * a write runs gives exactly one more write after it, so the file never lags for long and
 * two writes never race on the rename.
 * @example
 * const store = await StateStore.open('/tmp/data');
 * store.state.videos[vid] = video; store.changed();
 * await store.flush();
 */
export class StateStore {
  readonly state: PlatformState;
  readonly file: string;
  #writing: Promise<void> | undefined;
  #dirty = false;
  #error: unknown;

  private constructor(file: string, state: PlatformState) {
    this.file = file;
    this.state = state;
  }

  /** Loads `<dir>/state.json`, or starts empty when there is none. */
  static async open(dir: string): Promise<StateStore> {
    const file = join(dir, STATE_FILE);
    let text: string | undefined;
    try {
      text = await readFile(file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    if (text === undefined) {
      const store = new StateStore(file, emptyState());
      store.changed();
      await store.flush();
      return store;
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (error) {
      throw platformError('PLATFORM_DATA_CORRUPT', file, error instanceof Error ? error.message : String(error));
    }
    const state = parsed as Partial<PlatformState> | null;
    if (state === null || typeof state !== 'object' || state.version !== 1 || typeof state.linkSecret !== 'string') {
      throw platformError('PLATFORM_DATA_CORRUPT', file, 'it is not a version 1 emulator state');
    }
    return new StateStore(file, { ...emptyState(), ...state } as PlatformState);
  }

  /** Marks the state changed; a write follows on the next tick. */
  changed(): void {
    this.#dirty = true;
    this.#writing ??= this.#drain();
  }

  /** Resolves once every change made so far is on disk; rejects with the last write error. */
  async flush(): Promise<void> {
    while (this.#writing !== undefined) await this.#writing;
    if (this.#error !== undefined) {
      const error = this.#error;
      this.#error = undefined;
      throw error;
    }
  }

  async #drain(): Promise<void> {
    // Let the current tick finish its changes so they share one write.
    await new Promise<void>((resolve) => setImmediate(resolve));
    try {
      while (this.#dirty) {
        this.#dirty = false;
        await writeFileAtomic(this.file, JSON.stringify(this.state));
      }
    } catch (error) {
      this.#error = error;
    } finally {
      this.#writing = undefined;
    }
  }
}
