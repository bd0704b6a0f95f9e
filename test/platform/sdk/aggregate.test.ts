/**
 * The database stand-in's aggregation and server dates: a table of CloudBase-style pipelines
 * (written for this suite after CloudBase's documented stages and `db.command.aggregate`
 * operators), their `{ data }` shape, clear refusals, and `db.serverDate()` in every write path,
 * stored and read back as a Date.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Aggregate } from '../../../src/platform/sdk/aggregate.js';
import { createDatabase, type Database } from '../../../src/platform/sdk/database.js';
import { DocumentStore } from '../../../src/platform/sdk/store.js';

let dir: string;
let db: Database;

const sales = [
  { _id: 's1', city: 'Hangzhou', sales: 120, month: 1, tags: ['tea', 'silk'] },
  { _id: 's2', city: 'Suzhou', sales: 80, month: 1, tags: ['silk'] },
  { _id: 's3', city: 'Hangzhou', sales: 40, month: 2, tags: [] },
  { _id: 's4', city: 'Ningbo', sales: 200, month: 2, tags: ['port'] },
  { _id: 's5', city: 'Suzhou', sales: 60, month: 3 },
];
const cities = [
  { _id: 'Hangzhou', province: 'Zhejiang' },
  { _id: 'Ningbo', province: 'Zhejiang' },
  { _id: 'Suzhou', province: 'Jiangsu' },
];

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'cloudfn-sdk-agg-'));
  db = createDatabase(new DocumentStore(dir));
  for (const s of sales) await db.collection('sales').add(s);
  for (const c of cities) await db.collection('cities').add(c);
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('aggregate(): a table of pipelines', () => {
  const $ = () => db.command.aggregate;
  const _ = () => db.command;
  const cases: [string, (a: Aggregate) => Aggregate, unknown[]][] = [
    [
      'match with a query command, sort and limit',
      (a) =>
        a
          .match({ sales: _().gt(50) })
          .sort({ sales: 1 })
          .limit(2),
      [
        { _id: 's5', city: 'Suzhou', sales: 60, month: 3 },
        { _id: 's2', city: 'Suzhou', sales: 80, month: 1, tags: ['silk'] },
      ],
    ],
    [
      'group with sum and avg, sorted by _id',
      (a) =>
        a.group({ _id: '$city', total: $().sum('$sales'), mean: $().avg('$sales'), n: $().sum(1) }).sort({ _id: 1 }),
      [
        { _id: 'Hangzhou', total: 160, mean: 80, n: 2 },
        { _id: 'Ningbo', total: 200, mean: 200, n: 1 },
        { _id: 'Suzhou', total: 140, mean: 70, n: 2 },
      ],
    ],
    [
      'group over everything with max and min',
      (a) => a.group({ _id: null, top: $().max('$sales'), low: $().min('$sales') }),
      [{ _id: null, top: 200, low: 40 }],
    ],
    [
      'project with a computed field and neq',
      (a) =>
        a.project({ _id: 0, city: 1, double: $().multiply(['$sales', 2]), notJan: $().neq(['$month', 1]) }).limit(2),
      [
        { city: 'Hangzhou', double: 240, notJan: false },
        { city: 'Suzhou', double: 160, notJan: false },
      ],
    ],
    [
      'addFields then match on it',
      (a) =>
        a
          .addFields({ big: $().gte(['$sales', 100]) })
          .match({ big: true })
          .project({ _id: 1 }),
      [{ _id: 's1' }, { _id: 's4' }],
    ],
    ['skip then count', (a) => a.skip(2).count('rest'), [{ rest: 3 }]],
    [
      'unwind an array field',
      (a) => a.match({ _id: 's1' }).unwind('$tags').project({ _id: 0, tags: 1 }),
      [{ tags: 'tea' }, { tags: 'silk' }],
    ],
    [
      'sortByCount',
      (a) => a.sortByCount('$month').sort({ count: -1, _id: 1 }),
      [
        { _id: 1, count: 2 },
        { _id: 2, count: 2 },
        { _id: 3, count: 1 },
      ],
    ],
    [
      'lookup joins another collection',
      (a) =>
        a
          .match({ _id: 's4' })
          .lookup({ from: 'cities', localField: 'city', foreignField: '_id', as: 'where' })
          .project({ _id: 0, where: 1 }),
      [{ where: [{ _id: 'Ningbo', province: 'Zhejiang' }] }],
    ],
    [
      'replaceRoot with a built object',
      (a) => a.match({ _id: 's2' }).replaceRoot({ newRoot: { place: '$city', amount: '$sales' } }),
      [{ place: 'Suzhou', amount: 80 }],
    ],
    [
      'bucket by boundaries',
      (a) => a.bucket({ groupBy: '$sales', boundaries: [0, 100, 1000], output: { n: $().sum(1) } }),
      [
        { _id: 0, n: 3 },
        { _id: 100, n: 2 },
      ],
    ],
    ['an empty pipeline answers every document', (a) => a.project({ _id: 1 }), sales.map((s) => ({ _id: s._id }))],
  ];
  for (const [name, build, expected] of cases) {
    it(name, async () => {
      const result = await build(db.collection('sales').aggregate()).end();
      expect(result.data).toEqual(expected);
      expect(result.requestId).toMatch(/^[0-9a-f]{16}$/);
    });
  }

  it('samples the size asked for, from the collection', async () => {
    const { data } = await db.collection('sales').aggregate().sample({ size: 3 }).end();
    expect(data).toHaveLength(3);
    for (const doc of data) expect(sales.map((s) => s._id)).toContain(doc['_id']);
  });

  it('leaves the stored documents as they were', async () => {
    const before = readFileSync(join(dir, 'database', 'sales.json'), 'utf8');
    const { data } = await db.collection('sales').aggregate().match({ _id: 's1' }).end();
    (data[0]!['tags'] as string[]).push('changed');
    expect(readFileSync(join(dir, 'database', 'sales.json'), 'utf8')).toBe(before);
    expect((await db.collection('sales').doc('s1').get()).data[0]!['tags']).toEqual(['tea', 'silk']);
  });
});

describe('aggregate(): refusals name the stage and the fix', () => {
  const pipeline = () => db.collection('sales').aggregate();
  it('a limit that is not a positive integer', () => {
    expect(() => pipeline().limit(0)).toThrow('aggregate().limit() takes an integer of at least 1, got 0');
  });
  it('a sort order other than 1 or -1', () => {
    expect(() => pipeline().sort({ sales: 'desc' })).toThrow(
      'aggregate().sort() field sales takes 1 or -1, got "desc"',
    );
  });
  it('a group without _id', () => {
    expect(() => pipeline().group({ n: db.command.aggregate.sum(1) })).toThrow(
      'needs an _id (null groups every document)',
    );
  });
  it('a lookup from a name that is not a collection', () => {
    expect(() => pipeline().lookup({ from: '../x', localField: 'a', foreignField: 'b', as: 'c' })).toThrow(
      'collection name must be 1 to 100 letters',
    );
  });
  it('an operator mingo cannot run, at end(), naming the stages', async () => {
    await expect(
      pipeline()
        .project({ x: { $noSuchOperator: 1 } })
        .end(),
    ).rejects.toThrow(/collection\('sales'\)\.aggregate\(\) could not run \["\$project"\]: .*noSuchOperator/);
  });
  it('an aggregate operator it does not have', () => {
    expect(() => (db.command.aggregate as unknown as { fancy: unknown }).fancy).toThrow(
      /db\.command\.aggregate\.fancy is not emulated/,
    );
  });
});

describe('serverDate()', () => {
  it('is the time of the write in add, set and update, with an offset', async () => {
    const before = Date.now();
    const { _id } = await db
      .collection('events')
      .add({ at: db.serverDate(), later: db.serverDate({ offset: 60_000 }) });
    const after = Date.now();
    const [doc] = (await db.collection('events').doc(_id).get()).data;
    expect(doc!['at']).toBeInstanceOf(Date);
    const at = (doc!['at'] as Date).getTime();
    expect(at).toBeGreaterThanOrEqual(before);
    expect(at).toBeLessThanOrEqual(after);
    expect((doc!['later'] as Date).getTime() - at).toBe(60_000);

    await db
      .collection('events')
      .doc(_id)
      .update({ seen: db.serverDate({ offset: -1000 }) });
    const [updated] = (await db.collection('events').doc(_id).get()).data;
    expect(updated!['seen']).toBeInstanceOf(Date);
    expect((updated!['seen'] as Date).getTime()).toBeLessThan(Date.now());

    await db
      .collection('events')
      .doc('fixed')
      .set({ nested: { when: db.serverDate() }, list: [db.serverDate()] });
    const [set] = (await db.collection('events').doc('fixed').get()).data;
    expect((set!['nested'] as { when: unknown }).when).toBeInstanceOf(Date);
    expect((set!['list'] as unknown[])[0]).toBeInstanceOf(Date);
  });

  it('is stored as { $date } and compares as a date in where and match', async () => {
    await db.collection('events').add({ _id: 'old', at: new Date('2020-01-01T00:00:00Z') });
    await db.collection('events').add({ _id: 'new', at: db.serverDate() });
    const stored = JSON.parse(readFileSync(join(dir, 'database', 'events.json'), 'utf8')) as {
      _id: string;
      at: unknown;
    }[];
    expect(stored.find((d) => d._id === 'old')!.at).toEqual({ $date: '2020-01-01T00:00:00.000Z' });
    const _ = db.command;
    const recent = await db
      .collection('events')
      .where({ at: _.gt(db.serverDate({ offset: -3_600_000 })) })
      .get();
    expect(recent.data.map((d) => d['_id'])).toEqual(['new']);
    const sorted = await db.collection('events').aggregate().sort({ at: -1 }).limit(1).end();
    expect(sorted.data.map((d) => d['_id'])).toEqual(['new']);
    const matched = await db
      .collection('events')
      .aggregate()
      .match({ at: _.lt(db.serverDate()) })
      .end();
    expect(matched.data.map((d) => d['_id']).sort()).toEqual(['new', 'old']);
  });

  it('refuses an offset that is not a number', () => {
    expect(() => db.serverDate({ offset: '1h' } as unknown as { offset: number })).toThrow(
      'serverDate() takes { offset: <milliseconds> }, got {"offset":"1h"}',
    );
  });

  it('reads a stored object with other keys besides $date as it is', async () => {
    await db.collection('events').add({ _id: 'x', meta: { $date: 'not only', other: 1 } });
    const [doc] = (await db.collection('events').doc('x').get()).data;
    expect(doc!['meta']).toEqual({ $date: 'not only', other: 1 });
  });
});
