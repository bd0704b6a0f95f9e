/**
 * The second header of W3C Trace Context level 1 (https://www.w3.org/TR/trace-context/):
 * `tracestate`, checked and passed on when a request continues a caller's trace. Read only by
 * `service.trace` and the OpenTelemetry bridge, both loaded on first use, so a bundle does not
 * carry it at start (the first header is traceparent.ts's).
 */
import type { IncomingHttpHeaders } from 'node:http';

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

/** What `incomingTracestate` reads of a request (the Exchange has it). */
export interface IncomingTrace {
  /** The caller's span, from a valid incoming `traceparent`; undefined for a trace started here. */
  readonly parentSpanId: string | undefined;
  readonly req: { readonly headers: IncomingHttpHeaders };
}

/**
 * The incoming `tracestate`, checked, when the request continues a caller's trace (a
 * `tracestate` without a valid `traceparent` is dropped, §3.3.1).
 * @example incomingTracestate(exchange) // 'rojo=00f067aa0ba902b7'
 */
export function incomingTracestate(request: IncomingTrace): string | undefined {
  return request.parentSpanId === undefined ? undefined : checkTracestate(request.req.headers.tracestate);
}
