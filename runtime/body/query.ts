/**
 * Query strings and urlencoded bodies (WHATWG application/x-www-form-urlencoded): pairs
 * split on '&', key and value split on the first '=', '+' is a space, percent-escapes are
 * UTF-8. Unlike URLSearchParams, a bad escape is refused instead of kept as typed, so a
 * handler never sees a half-decoded value. A body's own checks (its bytes, its pair count before
 * decoding) are form.ts's, imported on the first urlencoded body.
 */
import { createError } from '../errors.js';
import type { QueryParams } from '../types.js';
import { nullObject } from './null-object.js';
import { isPoisonKey, showValue } from './poison.js';

export const AMP = 0x26;
const EQ = 0x3d;
const PLUS = 0x2b;
const PERCENT = 0x25;

/** Bits of a key's or value's flags: what decoding it needs. */
const HAS_PLUS = 1;
const HAS_PERCENT = 2;

export type BadCode = 'CLOUDFN_BAD_QUERY' | 'CLOUDFN_BAD_FORM';

/** The default of `maxParams` (options.ts's limits table), for direct callers that give none. */
export const MAX_PARAMS = 1000;

/**
 * Parses a query string (without the leading `?`) into a null-prototype object; a repeated
 * key gives an array of strings in order. Keys `__proto__`, `constructor` and `prototype`
 * are dropped. A bad percent-escape, or one that is not UTF-8, throws CLOUDFN_BAD_QUERY (400);
 * more than `maxParams` pairs throws CLOUDFN_TOO_MANY_PARAMS (413) as soon as the next pair is
 * reached, so one parse does at most `maxParams` pairs of work.
 * @param from where `maxParams` was set, for the message
 * @example parseQuery('a=1&b=x+y&a=2') // { a: ['1', '2'], b: 'x y' }
 */
export function parseQuery(
  qs: string,
  maxParams: number = MAX_PARAMS,
  from = 'the global option limits.maxParams',
): QueryParams {
  return parsePairs(qs, 'CLOUDFN_BAD_QUERY', maxParams, from);
}

// One pass over the characters, remembering per key and per value whether it holds '+'
// or '%': most pairs hold neither and are sliced without calling decodeURIComponent,
// which is what keeps this close to node's querystring on the GET hot path.
// The pair count is checked before a pair is decoded: past the limit, parsing stops at once.
export function parsePairs(qs: string, code: BadCode, maxParams: number, from: string): QueryParams {
  const out = nullObject<QueryParams>();
  const n = qs.length;
  let start = 0;
  let eq = -1;
  let keyFlags = 0;
  let valueFlags = 0;
  let pairs = 0;
  for (let i = 0; i < n; i++) {
    const c = qs.charCodeAt(i);
    if (c === AMP) {
      if (i > start) {
        if (++pairs > maxParams) throw tooMany(code, maxParams, from);
        addPair(out, qs, start, eq, i, keyFlags, valueFlags, code);
      }
      start = i + 1;
      eq = -1;
      keyFlags = 0;
      valueFlags = 0;
    } else if (c === EQ) {
      if (eq === -1) eq = i;
    } else if (c === PLUS) {
      if (eq === -1) keyFlags |= HAS_PLUS;
      else valueFlags |= HAS_PLUS;
    } else if (c === PERCENT) {
      if (eq === -1) keyFlags |= HAS_PERCENT;
      else valueFlags |= HAS_PERCENT;
    }
  }
  if (n > start) {
    if (++pairs > maxParams) throw tooMany(code, maxParams, from);
    addPair(out, qs, start, eq, n, keyFlags, valueFlags, code);
  }
  return out;
}

export function tooMany(code: BadCode, maxParams: number, from: string): Error {
  return createError(
    'CLOUDFN_TOO_MANY_PARAMS',
    code === 'CLOUDFN_BAD_QUERY' ? 'query string' : 'urlencoded body',
    maxParams,
    from,
  );
}

function addPair(
  out: QueryParams,
  qs: string,
  start: number,
  eq: number,
  end: number,
  keyFlags: number,
  valueFlags: number,
  code: BadCode,
): void {
  const keyEnd = eq === -1 ? end : eq;
  let key = qs.slice(start, keyEnd);
  let value = eq === -1 ? '' : qs.slice(eq + 1, end);
  if (keyFlags !== 0) key = decode(key, keyFlags, qs, start, end, code);
  if (valueFlags !== 0) value = decode(value, valueFlags, qs, start, end, code);
  if (isPoisonKey(key)) return;
  const previous = out[key];
  if (previous === undefined) out[key] = value;
  else if (typeof previous === 'string') out[key] = [previous, value];
  else previous.push(value);
}

function decode(part: string, flags: number, qs: string, start: number, end: number, code: BadCode): string {
  const spaced = (flags & HAS_PLUS) !== 0 ? part.replaceAll('+', ' ') : part;
  if ((flags & HAS_PERCENT) === 0) return spaced;
  try {
    return decodeURIComponent(spaced);
  } catch {
    // decodeURIComponent throws URIError for '%zz', a lone '%' and escapes that do not form UTF-8.
    throw createError(code, showValue(qs.slice(start, end)));
  }
}
