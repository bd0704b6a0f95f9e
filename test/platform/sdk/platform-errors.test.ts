/**
 * The refusals the platform's database pages describe come with the platform's errorCode and
 * errMsg (and cloudfn's explanation in message), and reject the operation rather than throwing
 * at the chain; the limits of get() and remove() stay as documented in platform-projects.md.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createDatabase, DocumentStore, type Database } from '../../../src/platform/sdk/index.js';

let dir: string;
let db: Database;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'cloudfn-db-errors-'));
  db = createDatabase(new DocumentStore(dir));
  await db.collection('todos').add({ _id: 'mike', age: 17 });
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** What the platform's pages show, as a table: the call and the errMsg it throws with 156401. */
const refusals: [string, () => Promise<unknown>, string, RegExp][] = [
  ["collection('').get()", () => db.collection('').get(), '集合名必填', /needs a collection name, got ""/],
  ["collection('').add()", () => db.collection('').add({ a: 1 }), '集合名必填', /db\.collection\('todos'\)/],
  ["collection('').where().count()", () => db.collection('').where({ a: 1 }).count(), '集合名必填', /collection name/],
  ["doc('').get()", () => db.collection('todos').doc('').get(), 'docId必须为非空字符串', /doc\(id\)\.get\(\) needs/],
  ["doc('').set()", () => db.collection('todos').doc('').set({ name: 'mike' }), 'docId必须为非空字符串', /set\(\)/],
  [
    "doc('').update()",
    () => db.collection('todos').doc('').update({ name: 'mike' }),
    'docId必须为非空字符串',
    /update/,
  ],
  ["doc('').remove()", () => db.collection('todos').doc('').remove(), 'docId必须为非空字符串', /remove/],
  ['doc(null).get()', () => db.collection('todos').doc(null).get(), 'docId必须为非空字符串', /got null/],
  ["set({ _id: '1' })", () => db.collection('todos').doc('mike').set({ _id: '1' }), '_id值不能更新', /_id "1"/],
  [
    "update({ _id: '1' })",
    () => db.collection('todos').doc('mike').update({ _id: '1' }),
    '_id值不能更新',
    /leave _id out/,
  ],
  [
    'where().update({ _id })',
    () => db.collection('todos').where({ age: 17 }).update({ _id: 'x' }),
    '_id值不能更新',
    /_id/,
  ],
  [
    'set({})',
    () => db.collection('todos').doc('mike').set({}),
    '参数必须为非空对象',
    /set\(\) needs a non-empty object of fields, got \{\}/,
  ],
  ['update({})', () => db.collection('todos').doc('mike').update({}), '参数必须为非空对象', /update\(\)/],
  [
    'update(undefined)',
    () => db.collection('todos').doc('mike').update(undefined),
    '参数必须为非空对象',
    /got undefined/,
  ],
  ['where().update({})', () => db.collection('todos').where({ age: 17 }).update({}), '参数必须为非空对象', /update/],
];

describe("the platform's refusals", () => {
  for (const [call, run, errMsg, explanation] of refusals) {
    it(`${call} rejects with errorCode 156401 and errMsg ${errMsg}`, async () => {
      const error = await run().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toMatchObject({ errorCode: 156401, errMsg });
      expect((error as Error).message).toMatch(explanation);
    });
  }

  it('leaves the store as it was after each refusal', async () => {
    for (const [, run] of refusals) await run().catch(() => undefined);
    expect((await db.collection('todos').get()).data).toEqual([{ _id: 'mike', age: 17 }]);
  });

  it("lets set() and update() name the document's own _id unchanged", async () => {
    await db.collection('todos').doc('mike').set({ _id: 'mike', age: 18 });
    await db.collection('todos').doc('mike').update({ _id: 'mike', done: true });
    expect((await db.collection('todos').doc('mike').get()).data).toEqual([{ _id: 'mike', age: 18, done: true }]);
  });

  it('keeps the chain synchronous: the refusal comes from the operation, for await and .catch alike', async () => {
    const query = db.collection('').where({ a: 1 }).limit(5);
    const caught = await query.get().catch((e: { errorCode?: number }) => e.errorCode);
    expect(caught).toBe(156401);
  });

  it('errors that the pages do not describe carry no errorCode', async () => {
    const error = await Promise.resolve()
      .then(() => db.collection('todos').limit(1001))
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'PLATFORM_SDK_BAD_ARGUMENT' });
    expect((error as { errorCode?: number }).errorCode).toBeUndefined();
  });
});
