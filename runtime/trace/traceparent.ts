/**
 * The first header of W3C Trace Context level 1 (https://www.w3.org/TR/trace-context/):
 * `traceparent` read strictly and written (the second, `tracestate`, is tracestate.ts's). A header
 * that breaks the grammar is ignored, so the request starts a new trace instead of failing.
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
