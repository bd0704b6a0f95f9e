/**
 * Keys that must never reach a parsed map, and the short, quoted form of a bad value shown
 * in error messages (a 10 MiB pair must not become a 10 MiB message).
 */

/**
 * True for `__proto__`, `constructor` and `prototype`, which parsed maps drop so that a later
 * merge or `Object.assign` by the handler cannot reach a prototype.
 * @example isPoisonKey('__proto__') // true
 */
export function isPoisonKey(key: string): boolean {
  // Length first: almost every key is rejected by one comparison.
  const n = key.length;
  if (n === 9) return key === '__proto__' || key === 'prototype';
  return n === 11 && key === 'constructor';
}

const SHOWN_CHARS = 60;

/**
 * A value as quoted in an error message: JSON-quoted (control characters escaped) and cut
 * to 60 characters.
 * @example showValue('a=%zz') // '"a=%zz"'
 */
export function showValue(value: string): string {
  return value.length > SHOWN_CHARS ? `${JSON.stringify(value.slice(0, SHOWN_CHARS))}...` : JSON.stringify(value);
}
