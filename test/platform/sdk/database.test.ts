/**
 * The database stand-in against a table of CloudBase-style queries and updates (written for
 * this suite after CloudBase's documented behaviour), and its result shapes.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createDatabase, type Database } from '../../../src/platform/sdk/database.js';
import { DocumentStore } from '../../../src/platform/sdk/store.js';

let dir: string;
let db: Database;

const players = [
  { _id: 'p1', name: 'Ana', score: 30, level: 3, tags: ['red', 'fast'], team: { city: 'Xi’an', size: 4 } },
  { _id: 'p2', name: 'Bo', score: 10, level: 1, tags: ['blue'], team: { city: 'Chengdu', size: 2 } },
  { _id: 'p3', name: 'Cai', score: 20, level: 2, tags: [], team: { city: 'Chengdu', size: 6 } },
  { _id: 'p4', name: 'Dan', score: 20, level: 5, tags: ['red'], banned: true },
];

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'cloudfn-sdk-db-'));
  db = createDatabase(new DocumentStore(dir));
  for (const p of players) await db.collection('players').add(p);
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const ids = (data: Record<string, unknown>[]): unknown[] => data.map((d) => d['_id']);

describe('where(): a table of queries', () => {
  const _ = () => db.command;
  const cases: [string, () => unknown, string[]][] = [
    ['a plain value is equality', () => ({ score: 20 }), ['p3', 'p4']],
    ['two fields must both match', () => ({ score: 20, level: 2 }), ['p3']],
    ['eq', () => ({ name: _().eq('Bo') }), ['p2']],
    ['neq keeps documents without the field', () => ({ banned: _().neq(true) }), ['p1', 'p2', 'p3']],
    ['gt', () => ({ score: _().gt(20) }), ['p1']],
    ['gte', () => ({ score: _().gte(20) }), ['p1', 'p3', 'p4']],
    ['lt', () => ({ level: _().lt(2) }), ['p2']],
    ['lte', () => ({ level: _().lte(2) }), ['p2', 'p3']],
    ['in', () => ({ name: _().in(['Ana', 'Dan', 'Zed']) }), ['p1', 'p4']],
    ['nin', () => ({ name: _().nin(['Ana', 'Dan']) }), ['p2', 'p3']],
    ['a value matches an array element', () => ({ tags: 'red' }), ['p1', 'p4']],
    ['a nested object is a nested field match', () => ({ team: { city: 'Chengdu' } }), ['p2', 'p3']],
    ['a dotted path too', () => ({ 'team.size': _().gt(3) }), ['p1', 'p3']],
    ['a field range with .and()', () => ({ score: _().gt(10).and(_().lt(30)) }), ['p3', 'p4']],
    ['a field alternative with .or()', () => ({ level: _().lt(2).or(_().gt(4)) }), ['p2', 'p4']],
    ['_.or over whole queries', () => _().or([{ name: 'Bo' }, { level: _().gte(5) }]), ['p2', 'p4']],
    ['_.and over whole queries', () => _().and([{ score: 20 }, { tags: 'red' }]), ['p4']],
    ['_.and of field commands', () => ({ score: _().and(_().gte(20), _().lte(20)) }), ['p3', 'p4']],
    ['exists', () => ({ banned: _().exists(true) }), ['p4']],
    ['nothing matches', () => ({ name: 'Nobody' }), []],
  ];
  for (const [name, query, expected] of cases) {
    it(name, async () => {
      const { data } = await db.collection('players').where(query()).get();
      expect(ids(data).sort()).toEqual(expected);
      expect((await db.collection('players').where(query()).count()).total).toBe(expected.length);
    });
  }
});

describe('update(): a table of updates on p1', () => {
  const _ = () => db.command;
  const cases: [string, () => unknown, Record<string, unknown>][] = [
    ['a plain value sets the field', () => ({ name: 'Ann' }), { name: 'Ann' }],
    ['inc', () => ({ score: _().inc(5) }), { score: 35 }],
    ['inc by a negative', () => ({ score: _().inc(-30) }), { score: 0 }],
    ['mul', () => ({ level: _().mul(2) }), { level: 6 }],
    [
      'a nested object sets only the fields it names',
      () => ({ team: { size: 5 } }),
      { team: { city: 'Xi’an', size: 5 } },
    ],
    ['_.set replaces a whole object field', () => ({ team: _().set({ size: 1 }) }), { team: { size: 1 } }],
    ['a dotted path', () => ({ 'team.city': 'Hefei' }), { team: { city: 'Hefei', size: 4 } }],
    ['remove deletes the field', () => ({ level: _().remove() }), { level: undefined }],
    ['push appends', () => ({ tags: _().push('new') }), { tags: ['red', 'fast', 'new'] }],
    ['push appends a list', () => ({ tags: _().push(['a', 'b']) }), { tags: ['red', 'fast', 'a', 'b'] }],
    ['unshift prepends', () => ({ tags: _().unshift('first') }), { tags: ['first', 'red', 'fast'] }],
    ['pop drops the last', () => ({ tags: _().pop() }), { tags: ['red'] }],
    ['shift drops the first', () => ({ tags: _().shift() }), { tags: ['fast'] }],
    ['pull removes a value', () => ({ tags: _().pull('red') }), { tags: ['fast'] }],
    [
      'addToSet skips a value already there',
      () => ({ tags: _().addToSet(['red', 'green']) }),
      { tags: ['red', 'fast', 'green'] },
    ],
    ['a new field is added', () => ({ coins: 7 }), { coins: 7 }],
  ];
  for (const [name, data, expected] of cases) {
    it(name, async () => {
      const result = await db.collection('players').doc('p1').update(data());
      expect(result).toMatchObject({ updated: 1 });
      const { data: docs } = await db.collection('players').doc('p1').get();
      expect(docs[0]).toMatchObject({ _id: 'p1', ...JSON.parse(JSON.stringify(expected)) });
      for (const [key, value] of Object.entries(expected)) expect(docs[0]![key]).toEqual(value);
    });
  }
});

describe('result shapes and the other operations', () => {
  it('add answers { _id, id, requestId } and makes an _id when none is given', async () => {
    const added = await db.collection('todos').add({ title: 'write tests' });
    expect(added).toEqual({ _id: expect.any(String), id: added._id, requestId: expect.any(String) });
    expect((await db.collection('todos').doc(added._id).get()).data).toEqual([
      { _id: added._id, title: 'write tests' },
    ]);
  });

  it('an update that changes nothing counts { updated: 0 }', async () => {
    expect(await db.collection('players').doc('p1').update({ score: 30 })).toMatchObject({ updated: 0 });
    expect(await db.collection('players').doc('nope').update({ score: 1 })).toMatchObject({ updated: 0 });
  });

  it('doc().get() of a missing document answers { data: [] }', async () => {
    expect((await db.collection('players').doc('nope').get()).data).toEqual([]);
  });

  it('add refuses an _id already there, naming it and set()', async () => {
    await expect(db.collection('players').add({ _id: 'p1' })).rejects.toThrow(
      /_id "p1" already; use doc\(id\)\.set\(\)/,
    );
  });

  it('set replaces a document, or creates it: { updated, upsertedId }', async () => {
    expect(await db.collection('players').doc('p2').set({ name: 'Bob' })).toMatchObject({
      updated: 1,
      upsertedId: null,
    });
    expect((await db.collection('players').doc('p2').get()).data).toEqual([{ _id: 'p2', name: 'Bob' }]);
    expect(await db.collection('players').doc('p9').set({ name: 'Nine' })).toMatchObject({
      updated: 0,
      upsertedId: 'p9',
    });
    expect((await db.collection('players').count()).total).toBe(5);
  });

  it('where().update() changes every match: { updated }', async () => {
    const res = await db
      .collection('players')
      .where({ score: 20 })
      .update({ score: db.command.inc(1) });
    expect(res).toMatchObject({ updated: 2 });
    const { data } = await db.collection('players').where({ score: 21 }).get();
    expect(ids(data).sort()).toEqual(['p3', 'p4']);
  });

  it('remove: { deleted } for a document and for a query', async () => {
    expect(await db.collection('players').doc('p1').remove()).toMatchObject({ deleted: 1 });
    expect(await db.collection('players').doc('p1').remove()).toMatchObject({ deleted: 0 });
    expect(await db.collection('players').where({ score: 20 }).remove()).toMatchObject({ deleted: 2 });
    expect((await db.collection('players').count()).total).toBe(1);
  });

  it('orderBy, skip, limit and field shape get()', async () => {
    const { data } = await db
      .collection('players')
      .orderBy('score', 'desc')
      .orderBy('name', 'asc')
      .skip(1)
      .limit(2)
      .field({ name: true })
      .get();
    expect(data).toEqual([
      { _id: 'p3', name: 'Cai' },
      { _id: 'p4', name: 'Dan' },
    ]);
  });

  it('get() answers at most 100 documents unless limit says otherwise', async () => {
    for (let i = 0; i < 120; i++) await db.collection('many').add({ i });
    expect((await db.collection('many').get()).data).toHaveLength(100);
    expect((await db.collection('many').limit(120).get()).data).toHaveLength(120);
    await expect(async () => db.collection('many').limit(1001)).rejects.toThrow(
      'limit takes an integer from 0 to 1000, got 1001',
    );
  });

  it('where().remove() with skip or limit is refused, naming where()', async () => {
    await expect(db.collection('players').where({ score: 20 }).limit(1).remove()).rejects.toThrow(
      'remove() applies to every matching document and takes no skip, limit, orderBy or field; narrow it with where()',
    );
  });

  it('keeps documents in <dataDir>/database/<collection>.json, seen by a new handle', async () => {
    const stored = JSON.parse(readFileSync(join(dir, 'database', 'players.json'), 'utf8')) as unknown[];
    expect(stored).toHaveLength(4);
    const again = createDatabase(new DocumentStore(dir));
    expect((await again.collection('players').doc('p3').get()).data[0]).toMatchObject({ name: 'Cai' });
  });

  it('concurrent adds all land', async () => {
    await Promise.all(Array.from({ length: 30 }, (_, i) => db.collection('race').add({ i })));
    expect((await db.collection('race').count()).total).toBe(30);
  });

  it('refuses a collection name that is not a plain file name when an operation runs', async () => {
    await expect(db.collection('../etc').get()).rejects.toThrow(
      'collection name must be 1 to 100 letters, digits, _ or -, got "../etc"',
    );
    await expect(db.collection('../etc').add({ a: 1 })).rejects.toThrow('got "../etc"');
  });

  it('names a member it does not emulate', () => {
    expect(() => (db as unknown as { startTransaction: unknown }).startTransaction).toThrow(
      /database\(\)\.startTransaction is not emulated by cloudfn's local stand-in/,
    );
    expect(() => (db.collection('players') as unknown as { watch: unknown }).watch).toThrow(
      /collection\('players'\)\.watch is not emulated/,
    );
    expect(() => (db.collection('players').aggregate() as unknown as { geoNear: unknown }).geoNear).toThrow(
      /collection\('players'\)\.aggregate\(\)\.geoNear is not emulated/,
    );
  });
});
