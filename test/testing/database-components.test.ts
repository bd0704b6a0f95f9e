/**
 * `seedDatabase` and `readDatabase` given the components a test started: the whole data file of
 * `cloudfn db export` (documents, Redis keys with their TTL, MySQL databases) written into real
 * redis-server and MariaDB and read back; Redis data without a Redis refused.
 */
import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Components, readDatabase, seedDatabase, startComponents } from '../../src/testing/index.js';

const engines =
  spawnSync('sh', ['-c', 'command -v redis-server && command -v mariadbd && command -v mariadb-dump']).status === 0;

describe.skipIf(!engines)('seedDatabase and readDatabase with { components }', () => {
  let components: Components;
  beforeAll(async () => {
    components = await startComponents({ redis: true, mysql: true });
  }, 120_000);
  afterAll(async () => {
    await components?.stop();
  });

  it('writes documents, a Redis key with a TTL and a MySQL row, and reads them back in the file shape', async () => {
    await seedDatabase(
      {
        $cloudfn: 'data/1',
        documents: { notes: [{ _id: 'n1', text: 'a' }] },
        redis: [{ db: 0, key: 'rank:top', type: 'zset', value: [['ada', 12]], ttlMs: 600_000 }],
        mysql: {
          databases: ['shop'],
          sql: "CREATE DATABASE shop; CREATE TABLE shop.users (id INT PRIMARY KEY, name VARCHAR(20)); INSERT INTO shop.users VALUES (1, 'ada');",
        },
      },
      { components },
    );
    const data = await readDatabase({ components });
    expect(data.documents).toEqual({ notes: [{ _id: 'n1', text: 'a' }] });
    expect(data.redis).toEqual([
      { db: 0, key: 'rank:top', type: 'zset', value: [['ada', 12]], ttlMs: expect.any(Number) },
    ]);
    expect(data.redis![0]!.ttlMs).toBeGreaterThan(60_000);
    expect(data.mysql?.databases).toEqual(['shop']);
    expect(data.mysql?.sql).toContain("(1,'ada')");
    // Without components: the documents alone, as before.
    expect(await readDatabase()).toEqual({ notes: [{ _id: 'n1', text: 'a' }] });
  }, 60_000);

  it('refuses Redis data when no Redis was given', async () => {
    await expect(
      seedDatabase({ $cloudfn: 'data/1', redis: [{ db: 0, key: 'k', type: 'string', value: 'v', ttlMs: null }] }),
    ).rejects.toThrow('seedDatabase() was given redis data but no local redis: pass { components }');
  });
});
