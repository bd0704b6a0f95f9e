/**
 * The two headers of W3C Trace Context level 1 (https://www.w3.org/TR/trace-context/):
 * `traceparent` read strictly and written, `tracestate` checked and passed on. A header that
 * breaks the grammar is ignored, so the request starts a new trace instead of failing.
 */

/** What a valid `traceparent` carries. */
export interface Traceparent {
  /** 32 lower-case hex digits, not all zeros. */
  traceId: string;
  /** The caller's span: 16 lower-case hex digits, not all zeros. */
  parentId: string;
  /** The trace-flags byte; bit 0 is `sampled`. */
  flags: number;
}

/**
 * `version "-" trace-id "-" parent-id "-" trace-flags`, all lower-case hex (§3.2.2). Upper case
 * is not allowed: the spec asks for lower case, and the W3C test suite expects it refused.
 */
const TRACEPARENT = /^[\da-f]{2}-[\da-f]{32}-[\da-f]{16}-[\da-f]{2}/;
const ZERO_TRACE = '0'.repeat(32);
const ZERO_SPAN = '0'.repeat(16);

/**
 * Parses a `traceparent` header, or returns undefined when it is absent or invalid: not a
 * string (two headers, node gives them joined, so invalid too), version `ff`, a trace id or
 * parent id of zeros, a wrong length or character. Version 00 is exactly 55 characters; a later
 * version is read as 00 when its first 55 characters fit and the next one, if any, is `-`
 * (§3.2.4, "Versioning of traceparent"). Spaces and tabs around the value are allowed (OWS).
 * @example parseTraceparent('00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01') // { traceId: '0af7…', parentId: 'b7ad…', flags: 1 }
 */
export function parseTraceparent(header: string | string[] | undefined): Traceparent | undefined {
  if (typeof header !== 'string') return undefined;
  let value = header;
  // OWS is rare: trim only when an end is a space or a tab.
  const first = value.charCodeAt(0);
  const last = value.charCodeAt(value.length - 1);
  if (first === 32 || first === 9 || last === 32 || last === 9) value = value.replace(/^[ \t]+|[ \t]+$/g, '');
  if (value.length < 55 || !TRACEPARENT.test(value)) return undefined;
  const version = value.slice(0, 2);
  if (version === 'ff') return undefined;
  if (version === '00' ? value.length !== 55 : value.length > 55 && value.charCodeAt(55) !== 45 /* - */)
    return undefined;
  const traceId = value.slice(3, 35);
  const parentId = value.slice(36, 52);
  if (traceId === ZERO_TRACE || parentId === ZERO_SPAN) return undefined;
  return { traceId, parentId, flags: Number.parseInt(value.slice(53, 55), 16) };
}

/**
 * The `traceparent` of a span: version 00 with the sampled flag alone (this runtime knows no
 * other flag of level 1, and does not pass on bits it does not know).
 * @example formatTraceparent('0af7651916cd43dd8448eb211c80319c', '00f067aa0ba902b7', true) // '00-0af7…-00f0…-01'
 */
export function formatTraceparent(traceId: string, spanId: string, sampled: boolean): string {
  return `00-${traceId}-${spanId}-${sampled ? '01' : '00'}`;
}

/**
 * A list-member key (§3.3.1.3.1): a simple key of 1-256 characters starting with a lower-case
 * letter, or `tenant@system` (tenant 1-241, starting with a letter or digit; system 1-14,
 * starting with a letter).
 */
const KEY = /^(?:[a-z][a-z\d_\-*/]{0,255}|[a-z\d][a-z\d_\-*/]{0,240}@[a-z][a-z\d_\-*/]{0,13})$/;
/** A value: 1-256 printable ASCII characters but `,` and `=`, not ending with a space. */
const VALUE = /^[\x20-\x2b\x2d-\x3c\x3e-\x7e]{0,255}[\x21-\x2b\x2d-\x3c\x3e-\x7e]$/;
/** Most list members a `tracestate` may carry (§3.3.1.1). */
const MAX_MEMBERS = 32;

/**
 * Checks a `tracestate` header and returns it normalized (members joined by `,`, spaces
 * around them dropped), or undefined when it is absent, empty or invalid. Several headers
 * are one list (node joins them with `, `). An invalid list is dropped whole, as the W3C test
 * suite expects: a bad key or value, a duplicated key, more than 32 members.
 * @example checkTracestate('rojo=00f067aa0ba902b7, congo=t61rcWkgMzE') // 'rojo=00f067aa0ba902b7,congo=t61rcWkgMzE'
 */
export function checkTracestate(header: string | string[] | undefined): string | undefined {
  const text = Array.isArray(header) ? header.join(',') : header;
  if (text === undefined) return undefined;
  const members: string[] = [];
  const keys = new Set<string>();
  for (const raw of text.split(',')) {
    const member = raw.replace(/^[ \t]+|[ \t]+$/g, '');
    if (member === '') continue;
    const eq = member.indexOf('=');
    if (eq === -1) return undefined;
    const key = member.slice(0, eq);
    if (!KEY.test(key) || !VALUE.test(member.slice(eq + 1)) || keys.has(key)) return undefined;
    keys.add(key);
    members.push(member);
  }
  if (members.length === 0 || members.length > MAX_MEMBERS) return undefined;
  return members.join(',');
}
