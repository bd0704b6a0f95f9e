/**
 * `retryAfterSeconds`: reads a `Retry-After` header in either of its two forms (RFC 9110
 * §10.2.3), a number of seconds or an HTTP date.
 */

/** `delay-seconds = 1*DIGIT`; a decimal fraction is taken too, as cloudfn always has. */
const DELAY_SECONDS = /^\d+(?:\.\d+)?$/;

/**
 * The seconds a `Retry-After` value asks to wait, from the time `now` (ms since the epoch):
 * `"120"` is 120; an HTTP date (`"Wed, 21 Oct 2026 07:28:00 GMT"`, or the obsolete RFC 850 and
 * asctime forms) is the time left until it, 0 when it has passed. Undefined when the header is
 * absent or is neither form, so the caller keeps its own back-off.
 * @example retryAfterSeconds('Wed, 21 Oct 2026 07:28:00 GMT', Date.parse('2026-10-21T07:27:30Z')) // 30
 */
export function retryAfterSeconds(value: string | null | undefined, now: number): number | undefined {
  if (value === null || value === undefined) return undefined;
  const text = value.trim();
  if (DELAY_SECONDS.test(text)) return Number(text);
  // Only a date names a weekday or month; this keeps Date.parse from reading "1.5" or "-3" as dates.
  if (!/[A-Za-z]/.test(text)) return undefined;
  // HTTP dates are always GMT; the asctime form does not say so, and Date.parse would take it as local time.
  const at = Date.parse(/GMT|UTC/i.test(text) ? text : `${text} GMT`);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, Math.ceil((at - now) / 1000));
}
