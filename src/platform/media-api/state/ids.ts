/**
 * Ids the emulator makes: `newLogId` for the `x-platform-logid` of each answer, `newId` for
 * vids, job ids and run ids.
 */
import { randomBytes } from 'node:crypto';

/**
 * A log id in the platform's style: the UTC time to the second, then 18 random hex digits,
 * so ids sort by time and a user can tell roughly when a request ran from its id alone.
 * @example newLogId() // '20240510081502A1B2C3D4E5F6A7B8C9D0'
 */
export function newLogId(now: Date = new Date()): string {
  const stamp = now.toISOString().replace(/[-:T]/g, '').slice(0, 14);
  return stamp + randomBytes(9).toString('hex').toUpperCase();
}

/**
 * A random id with a prefix, for vids, job ids and run ids.
 * @example newId('v') // 'v0a1b2c3d4e5f60718'
 */
export function newId(prefix: string, bytes = 8): string {
  return prefix + randomBytes(bytes).toString('hex');
}
