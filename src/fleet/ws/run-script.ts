/**
 * Running the directory's Lua scripts by their SHA1 (EVALSHA: the script's text is sent once
 * per connection, not with every push), sending the text again when Redis answers NOSCRIPT
 * (after a restart or SCRIPT FLUSH). Also the slice of ioredis' client the directory uses.
 */
import { createHash } from 'node:crypto';

/** A stream entry as ioredis' `xreadBuffer` gives it: id, then fields and values in turn. */
export type StreamEntry = [id: Buffer, fields: Buffer[]];

/** What the Redis session directory sends: ioredis' `Redis` fits. */
export interface DirectoryRedis {
  eval(script: string, numKeys: number, ...args: (string | number | Buffer)[]): Promise<unknown>;
  evalsha(sha: string, numKeys: number, ...args: (string | number | Buffer)[]): Promise<unknown>;
  set(key: string, value: string, ...args: (string | number)[]): Promise<unknown>;
  xadd(key: string, ...args: (string | number | Buffer)[]): Promise<unknown>;
  pexpire(key: string, ms: number): Promise<unknown>;
  del(...keys: string[]): Promise<unknown>;
  xreadBuffer(...args: (string | number)[]): Promise<[key: Buffer, entries: StreamEntry[]][] | null>;
  on(event: string, listener: (...args: unknown[]) => void): unknown;
  off?(event: string, listener: (...args: unknown[]) => void): unknown;
  disconnect(): void;
}

const shas = new Map<string, string>();

/**
 * Runs `script` with no declared keys and `args` as ARGV.
 * @example await runScript(redis, HEARTBEAT, [prefix, proc, 9000])
 */
export async function runScript(
  redis: DirectoryRedis,
  script: string,
  args: readonly (string | number | Buffer)[],
): Promise<unknown> {
  let sha = shas.get(script);
  if (sha === undefined) {
    sha = createHash('sha1').update(script).digest('hex');
    shas.set(script, sha);
  }
  try {
    return await redis.evalsha(sha, 0, ...args);
  } catch (error) {
    if (!/NOSCRIPT/.test((error as Error).message)) throw error;
    return redis.eval(script, 0, ...args);
  }
}

/** A stream entry's fields as a map of name to value (Buffers: push data stays bytes). */
export function entryFields(fields: Buffer[]): Map<string, Buffer> {
  const map = new Map<string, Buffer>();
  for (let i = 0; i + 1 < fields.length; i += 2) map.set(fields[i]!.toString(), fields[i + 1]!);
  return map;
}
