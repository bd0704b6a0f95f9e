/**
 * The data file of `cloudfn db`: the older shape (collections at the top) read as documents
 * only, the app shape checked whole, each bad entry refused in one line naming it, and the
 * stray-data warning of an older layout.
 */
import { mkdirSync, mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { findAppRoot, formatAppData, holdsData, parseAppData, strayDataWarning } from '../../src/app/index.js';

describe('parseAppData', () => {
  it('reads a file of the older shape as documents only', () => {
    const data = parseAppData('{"todos":[{"_id":"a","at":{"$date":"2026-01-31T08:00:00.000Z"}}]}', 'old.json');
    expect(data).toEqual({ documents: { todos: [{ _id: 'a', at: new Date('2026-01-31T08:00:00.000Z') }] } });
    expect(formatAppData(data)).toBe(
      `${JSON.stringify({ todos: [{ _id: 'a', at: { $date: '2026-01-31T08:00:00.000Z' } }] }, null, 2)}\n`,
    );
  });

  it('reads the app shape and writes it back the same', () => {
    const file = {
      $cloudfn: 'data/1',
      documents: { notes: [{ _id: 'n1', text: 'a' }] },
      redis: [
        { db: 0, key: 's', type: 'string', value: 'v', ttlMs: 5000 },
        { db: 1, key: 'h', type: 'hash', value: { a: '1' }, ttlMs: null },
        { db: 0, key: 'z', type: 'zset', value: [['ada', 1.5]], ttlMs: null },
      ],
      mysql: { databases: ['shop'], sql: 'CREATE DATABASE shop;' },
    };
    const text = formatAppData(parseAppData(JSON.stringify(file), 'b.json'));
    expect(JSON.parse(text)).toEqual(file);
  });

  it.each([
    ['[1]', 'a dump is a JSON object of collections'],
    ['{"$cloudfn":"data/2"}', '"$cloudfn" must be "data/1", got "data/2"'],
    ['{"$cloudfn":"data/1","extra":1}', 'unknown key "extra"'],
    ['{"$cloudfn":"data/1","redis":{}}', '"redis" must be an array of keys'],
    [
      '{"$cloudfn":"data/1","redis":[{"key":"","type":"string","value":"v"}]}',
      'redis entry 0: key must be a non-empty string',
    ],
    [
      '{"$cloudfn":"data/1","redis":[{"key":"k","type":"stream","value":"v"}]}',
      'redis key "k": type must be one of string, hash, list, set, zset, dump',
    ],
    [
      '{"$cloudfn":"data/1","redis":[{"key":"k","type":"list","value":[1]}]}',
      'redis key "k": the value of a list must be an array of strings',
    ],
    [
      '{"$cloudfn":"data/1","redis":[{"key":"k","db":16,"type":"string","value":"v"}]}',
      'db must be a database number from 0 to 15',
    ],
    ['{"$cloudfn":"data/1","mysql":{"databases":["a b"],"sql":""}}', 'mysql.databases lists "a b"'],
    ['{"$cloudfn":"data/1","mysql":{"databases":[],"sql":"DROP DATABASE x"}}', 'names no database'],
    ['{"$cloudfn":"data/1","documents":{"t":{}}}', 'collection "t" must be an array of documents'],
    ['not json', 'not JSON'],
  ])('refuses %s in one line naming what is wrong', (text, message) => {
    expect(() => parseAppData(text, 'f.json')).toThrow(message);
    expect(() => parseAppData(text, 'f.json')).toThrow(/^f\.json/);
    expect(() => parseAppData(text, 'f.json')).toThrow(/nothing was written$/);
  });
});

describe('strayDataWarning', () => {
  it("names the service folder that holds data while the app's data home is empty, and only then", () => {
    const root = realpathSync(mkdtempSync(join(tmpdir(), 'cloudfn-stray-')));
    writeFileSync(join(root, 'cloudfn.config.json'), JSON.stringify({ services: ['game', 'profile'] }));
    for (const name of ['game', 'profile']) mkdirSync(join(root, name));
    const app = findAppRoot(root)!;
    expect(strayDataWarning(app)).toBeUndefined();
    mkdirSync(join(root, 'profile', '.cloudfn', 'platform', 'database'), { recursive: true });
    writeFileSync(join(root, 'profile', '.cloudfn', 'platform', 'database', 'notes.json'), '[]');
    expect(strayDataWarning(app)).toBe(
      `warning: the app's data home ${join(root, '.cloudfn')} is empty, but ${join(root, 'profile', '.cloudfn')} holds data from before the app root; move its platform/ and components/ into .cloudfn/ to keep it`,
    );
    mkdirSync(join(root, '.cloudfn', 'components', 'mysql', 'data'), { recursive: true });
    expect(holdsData(join(root, '.cloudfn'))).toBe(true);
    expect(strayDataWarning(app)).toBeUndefined();
  });
});
