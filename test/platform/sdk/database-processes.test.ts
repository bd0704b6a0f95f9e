/**
 * One database for the app: `dySDK.database()`'s store written at once by several processes,
 * as the services of one `cloudfn dev` session do (each service is a process of its own, all on
 * the first folder's store). Three processes each add documents and update one shared counter
 * document at the same instants; nothing is lost: every document lands and the counter reads
 * the sum of every increment.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createDatabase } from '../../../src/platform/sdk/database.js';
import { DocumentStore } from '../../../src/platform/sdk/store.js';

const REPO = resolve(import.meta.dirname, '..', '..', '..');
const dir = mkdtempSync(join(tmpdir(), 'cloudfn-db-processes-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A writer process: waits for the start instant, then `count` adds and `count` increments at once. */
const WRITER = `
const { createDatabase } = await import(${JSON.stringify(join(REPO, 'dist/src/platform/sdk/database.js'))});
const { DocumentStore } = await import(${JSON.stringify(join(REPO, 'dist/src/platform/sdk/store.js'))});
const [dir, name, count, at] = process.argv.slice(1);
const db = createDatabase(new DocumentStore(dir));
const _ = db.command;
await new Promise((r) => setTimeout(r, Math.max(0, Number(at) - Date.now())));
await Promise.all(Array.from({ length: Number(count) }, (_x, i) => [
  db.collection('scores').add({ writer: name, i }),
  db.collection('totals').doc('all').update({ n: _.inc(1) }),
]).flat());
`;

function writer(name: string, count: number, at: number): Promise<number | null> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', WRITER, dir, name, String(count), String(at)], {
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    child.once('error', reject);
    child.once('exit', resolve);
  });
}

describe('dySDK.database() written by several processes at once', () => {
  it('loses no document and no increment', async () => {
    const db = createDatabase(new DocumentStore(dir));
    await db.collection('totals').add({ _id: 'all', n: 0 });
    const at = Date.now() + 1500;
    const codes = await Promise.all([writer('game', 25, at), writer('profile', 25, at), writer('rank', 25, at)]);
    expect(codes).toEqual([0, 0, 0]);
    expect((await db.collection('scores').count()).total).toBe(75);
    for (const name of ['game', 'profile', 'rank'])
      expect((await db.collection('scores').where({ writer: name }).count()).total).toBe(25);
    expect((await db.collection('totals').doc('all').get()).data[0]).toMatchObject({ n: 75 });
  }, 60_000);
});
