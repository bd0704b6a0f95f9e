/**
 * `seedDatabase` and `readDatabase`: the database stand-in (`dySDK.database()`) in unit tests.
 * Each seed starts a store of its own in a temporary folder and points the stand-in at it
 * (CLOUDFN_PLATFORM_DATA of this process), so tests never see each other's data nor the
 * project's `.cloudfn/platform`; the folders are removed when the process exits.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PLATFORM_ENV_VARS } from '../platform/media-api/platform-options.js';
import { checkDump, exportStore, importStore } from '../platform/sdk/database/index.js';
import { readSdkOptions } from '../platform/sdk/sdk-options.js';

/** Collections and their documents; a date is a `Date` or `{ $date: "<ISO time>" }`. */
export type DatabaseData = Record<string, Record<string, unknown>[]>;

/** The stores this process made, removed at its exit. */
const made: string[] = [];
let cleanupRegistered = false;

/**
 * Starts a private, empty store for the functions this process calls, and writes `data` in it
 * (checked as `cloudfn db import` checks a file; documents without `_id` get one).
 * @example
 * await seedDatabase({ todos: [{ _id: 'a', title: 'first', due: new Date('2026-01-31') }] });
 * const res = await invoke('functions/todos.ts');
 */
export async function seedDatabase(data: DatabaseData = {}): Promise<{ dataDir: string }> {
  const dump = checkDump(data, 'seedDatabase()');
  const dataDir = mkdtempSync(join(tmpdir(), 'cloudfn-test-db-'));
  made.push(dataDir);
  if (!cleanupRegistered) {
    cleanupRegistered = true;
    process.once('exit', () => {
      for (const dir of made) rmSync(dir, { recursive: true, force: true });
    });
  }
  await importStore(dataDir, dump, { merge: false });
  process.env[PLATFORM_ENV_VARS.dataDir] = dataDir;
  return { dataDir };
}

/**
 * Every collection of the store the stand-in uses now (the last `seedDatabase`'s), dates as `Date`s.
 * @example expect((await readDatabase()).todos).toHaveLength(2)
 */
export function readDatabase(): Promise<DatabaseData> {
  return exportStore(readSdkOptions().dataDir);
}
