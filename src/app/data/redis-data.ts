/**
 * A local Redis component's data as JSON, both ways: every key of every database with its type,
 * its value and the time it had left to live (`ttlMs`, null when it never expires). Strings,
 * hashes, lists, sets and sorted sets are written as JSON values; any other type (streams,
 * modules' types) as the server's own `DUMP`, base64, restored with `RESTORE`. Values are read
 * as UTF-8 text.
 */
import { RedisConnection, type Reply } from './resp.js';

/** The value of each type, as the file writes it. */
export type RedisValue =
  | { type: 'string'; value: string }
  | { type: 'hash'; value: Record<string, string> }
  | { type: 'list'; value: string[] }
  | { type: 'set'; value: string[] }
  | { type: 'zset'; value: [member: string, score: number][] }
  | { type: 'dump'; value: string };

/** One key. */
export type RedisKey = { db: number; key: string; ttlMs: number | null } & RedisValue;

/** The types written as JSON values; `dump` stands for every other. */
export const REDIS_TYPES = ['string', 'hash', 'list', 'set', 'zset', 'dump'] as const;

const text = (reply: Reply): string => (Buffer.isBuffer(reply) ? reply.toString('utf8') : String(reply));
const texts = (reply: Reply): string[] => (Array.isArray(reply) ? reply.map(text) : []);

/** The databases that hold keys, from `INFO keyspace` (`db0:keys=3,…`). */
async function databases(redis: RedisConnection): Promise<number[]> {
  const info = text(await redis.send('INFO', 'keyspace'));
  return [...info.matchAll(/^db(\d+):keys=(\d+)/gm)].filter((m) => Number(m[2]) > 0).map((m) => Number(m[1]));
}

async function readValue(redis: RedisConnection, key: string, type: string): Promise<RedisValue> {
  if (type === 'string') return { type, value: text(await redis.send('GET', key)) };
  if (type === 'hash') {
    const flat = texts(await redis.send('HGETALL', key));
    const value: Record<string, string> = {};
    for (let i = 0; i < flat.length; i += 2) value[flat[i]!] = flat[i + 1]!;
    return { type, value };
  }
  if (type === 'list') return { type, value: texts(await redis.send('LRANGE', key, 0, -1)) };
  if (type === 'set') return { type, value: texts(await redis.send('SMEMBERS', key)).sort() };
  if (type === 'zset') {
    const flat = texts(await redis.send('ZRANGE', key, 0, -1, 'WITHSCORES'));
    const value: [string, number][] = [];
    for (let i = 0; i < flat.length; i += 2) value.push([flat[i]!, Number(flat[i + 1])]);
    return { type, value };
  }
  const dumped = await redis.send('DUMP', key);
  return { type: 'dump', value: Buffer.isBuffer(dumped) ? dumped.toString('base64') : '' };
}

/**
 * Every key of the server at `url`, sorted by database and key.
 * @example const keys = await exportRedis('redis://cloudfn:pw@127.0.0.1:6390');
 */
export async function exportRedis(url: string): Promise<RedisKey[]> {
  const redis = await RedisConnection.open(url);
  try {
    const keys: RedisKey[] = [];
    for (const db of await databases(redis)) {
      await redis.send('SELECT', db);
      const names = new Set<string>();
      let cursor = '0';
      do {
        const [next, batch] = (await redis.send('SCAN', cursor, 'COUNT', 1000)) as [Buffer, Reply[]];
        cursor = text(next);
        for (const name of texts(batch)) names.add(name);
      } while (cursor !== '0');
      for (const key of [...names].sort()) {
        const type = text(await redis.send('TYPE', key));
        if (type === 'none') continue; // expired between SCAN and TYPE
        const value = await readValue(redis, key, type);
        const pttl = (await redis.send('PTTL', key)) as number;
        if (pttl === -2) continue;
        keys.push({ db, key, ...value, ttlMs: pttl < 0 ? null : pttl });
      }
    }
    return keys;
  } finally {
    redis.close();
  }
}

/**
 * Writes `keys` into the server at `url`, each replacing the key of that name (its other keys are
 * kept); a `ttlMs` is set again from now.
 * @example await importRedis(url, [{ db: 0, key: 'top', type: 'string', value: '1', ttlMs: 60000 }]);
 */
export async function importRedis(url: string, keys: readonly RedisKey[]): Promise<void> {
  const redis = await RedisConnection.open(url);
  try {
    let selected = -1;
    for (const entry of keys) {
      if (entry.db !== selected) {
        await redis.send('SELECT', entry.db);
        selected = entry.db;
      }
      const { key } = entry;
      await redis.send('DEL', key);
      if (entry.type === 'string') await redis.send('SET', key, entry.value);
      else if (entry.type === 'hash') {
        const flat = Object.entries(entry.value).flat();
        if (flat.length > 0) await redis.send('HSET', key, ...flat);
      } else if (entry.type === 'list') {
        if (entry.value.length > 0) await redis.send('RPUSH', key, ...entry.value);
      } else if (entry.type === 'set') {
        if (entry.value.length > 0) await redis.send('SADD', key, ...entry.value);
      } else if (entry.type === 'zset') {
        if (entry.value.length > 0)
          await redis.send('ZADD', key, ...entry.value.flatMap(([member, score]) => [String(score), member]));
      } else await redis.send('RESTORE', key, 0, Buffer.from(entry.value, 'base64'), 'REPLACE');
      if (entry.ttlMs !== null) await redis.send('PEXPIRE', key, Math.max(1, entry.ttlMs));
    }
  } finally {
    redis.close();
  }
}

/**
 * Removes every key of every database; answers how many there were.
 * @example await resetRedis(url) // 3
 */
export async function resetRedis(url: string): Promise<number> {
  const redis = await RedisConnection.open(url);
  try {
    const info = text(await redis.send('INFO', 'keyspace'));
    const count = [...info.matchAll(/^db\d+:keys=(\d+)/gm)].reduce((sum, m) => sum + Number(m[1]), 0);
    await redis.send('FLUSHALL');
    return count;
  } finally {
    redis.close();
  }
}
