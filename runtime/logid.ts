/**
 * Log ids: taken from the incoming header when it is a safe token, otherwise generated.
 * A generated id sorts by time: 12 hex digits of milliseconds, 6 of a per-process random
 * prefix, 6 of a counter (e.g. `0193a1b2c3d4e5f6a7000001`), 24 characters in all.
 */
import { randomBytes } from 'node:crypto';

const processPart = randomBytes(3).toString('hex');
let counter = 0;

/** Generates a new time-sortable log id. */
export function generateLogid(): string {
  counter = (counter + 1) & 0xffffff;
  return Date.now().toString(16).padStart(12, '0') + processPart + counter.toString(16).padStart(6, '0');
}

/** What an incoming log id may look like: 1 to 128 of letters, digits and `._:-`. */
const SAFE_LOGID = /^[\w.:-]{1,128}$/;

/**
 * Returns the incoming id when it is safe to echo into headers and logs, otherwise a new one.
 * @example pickLogid(req.headers['x-platform-logid'])
 */
export function pickLogid(incoming: string | string[] | undefined): string {
  return typeof incoming === 'string' && SAFE_LOGID.test(incoming) ? incoming : generateLogid();
}
