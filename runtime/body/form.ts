/**
 * Urlencoded bodies (application/x-www-form-urlencoded), read with the rules of query strings
 * (query.ts): the bytes checked as UTF-8 and the pairs counted before any is decoded.
 * parse-body.ts imports this file on the first urlencoded body: a bundle's start-up does not
 * read it (issue 44).
 */
import { createError } from '../errors.js';
import type { QueryParams } from '../types.js';
import { showValue } from './poison.js';
import { AMP, MAX_PARAMS, parsePairs, tooMany } from './query.js';

// A builtin through process.getBuiltinModule rather than an ESM import, which builds a namespace
// from every export of the module: node:util, node:buffer and node:stream imported that way cost
// 0.7 ms of each cold start (node 20, after node:http), taken this way 0.1 ms.
const { isUtf8 } = process.getBuiltinModule('node:buffer');

/**
 * Parses an application/x-www-form-urlencoded body with the rules of `parseQuery`; errors
 * are CLOUDFN_BAD_FORM (400), including raw bytes that are not UTF-8, and CLOUDFN_TOO_MANY_PARAMS
 * (413) past `maxParams` pairs.
 * @example parseForm(Buffer.from('name=J%C3%BCrgen')) // { name: 'Jürgen' }
 */
export function parseForm(
  body: Buffer | string,
  maxParams: number = MAX_PARAMS,
  from = 'the global option limits.maxParams',
): QueryParams {
  if (typeof body === 'string') return parsePairs(body, 'CLOUDFN_BAD_FORM', maxParams, from);
  // Past the limit only the pairs before it are decoded (their errors come first, as in a
  // string): a body of a million pairs costs a scan for '&', not a string of its whole size.
  const over = overflowAt(body, maxParams);
  const head = over === -1 ? body : body.subarray(0, over);
  const text = head.toString('utf8');
  // toString would silently turn bytes that are not UTF-8 into U+FFFD.
  if (!isUtf8(head)) throw createError('CLOUDFN_BAD_FORM', showValue(firstPairWithReplacement(text)));
  const params = parsePairs(text, 'CLOUDFN_BAD_FORM', maxParams, from);
  if (over !== -1) throw tooMany('CLOUDFN_BAD_FORM', maxParams, from);
  return params;
}

/**
 * The byte offset where the pair after the first `maxParams` begins, or -1 when the body holds
 * no more than that (empty pairs, `&&`, do not count, as in `parsePairs`). One native search per
 * pair: '&' never occurs inside a UTF-8 sequence, so the bytes split where the text would.
 */
function overflowAt(body: Buffer, maxParams: number): number {
  const n = body.length;
  let pairs = 0;
  let start = 0;
  while (start < n) {
    let amp = body.indexOf(AMP, start);
    if (amp === -1) amp = n;
    if (amp > start && ++pairs > maxParams) return start;
    start = amp + 1;
  }
  return -1;
}

/** The first pair of `text` holding U+FFFD, which a byte that is not UTF-8 became. */
function firstPairWithReplacement(text: string): string {
  const at = text.indexOf('\uFFFD');
  const from = text.lastIndexOf('&', at) + 1;
  const to = text.indexOf('&', at);
  return text.slice(from, to === -1 ? text.length : to);
}
