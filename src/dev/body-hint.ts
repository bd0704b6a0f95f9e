/**
 * The dev server's hint for a body whose Content-Type does not match it: JSON text sent as an
 * urlencoded form (what `curl -d` sends) or as text/plain, or a form sent as text/plain. The
 * body is still parsed as its Content-Type says (a deployed server does the same); the hint only
 * names the Content-Type the client most likely meant, once per request, in the request's log.
 */
import { mediaType } from '../../runtime/body/content-type.js';
import type { Handler, Service } from '../../runtime/types.js';

/** What `curl` and fetch users write to send each type. */
const HOW: Readonly<Record<string, string>> = {
  'application/json':
    "-H 'Content-Type: application/json' (curl --json '...' sets it; fetch: headers: { 'Content-Type': 'application/json' })",
  'application/x-www-form-urlencoded':
    "-H 'Content-Type: application/x-www-form-urlencoded' (what curl -d sends; fetch sends it for a URLSearchParams body)",
};

/** `a=1&b=x+y`: what an urlencoded form looks like. */
const FORM_TEXT = /^[\w.~%+-]+=[^&=\s]*(?:&[\w.~%+-]+=[^&=\s]*)*$/;

function looksLikeJson(text: string): boolean {
  const first = text[0];
  if (first !== '{' && first !== '[') return false;
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/**
 * The Content-Type `body` most likely has when it does not match `contentType`, or undefined.
 * Only short bodies are looked at (64 KiB): a hint is for a request typed by hand.
 * @example likelyContentType('application/x-www-form-urlencoded', Buffer.from('{"a":1}')) // 'application/json'
 */
export function likelyContentType(contentType: string | undefined, body: Buffer): string | undefined {
  if (body.length === 0 || body.length > 64 * 1024) return undefined;
  const type = mediaType(contentType);
  if (type !== 'application/x-www-form-urlencoded' && type !== 'text/plain') return undefined;
  const text = body.toString('utf8').trim();
  if (looksLikeJson(text)) return 'application/json';
  if (type === 'text/plain' && FORM_TEXT.test(text)) return 'application/x-www-form-urlencoded';
  return undefined;
}

/**
 * The hint's words for a request, or undefined when its body matches its Content-Type.
 * @example bodyHint('text/plain', Buffer.from('{"a":1}')) // 'the body looks like application/json but ...'
 */
export function bodyHint(contentType: string | undefined, body: Buffer): string | undefined {
  const likely = likelyContentType(contentType, body);
  if (likely === undefined) return undefined;
  const type = mediaType(contentType);
  const as = type === 'text/plain' ? 'a string' : 'a form (its keys are the JSON text)';
  return `the body looks like ${likely} but was sent as Content-Type ${type}, so params is ${as}; if you meant ${likely}, send ${HOW[likely]}`;
}

/**
 * Wraps a handler so that each request whose body does not match its Content-Type logs the
 * hint (a warn line with the request's logid) before the handler runs.
 * @example spec.handler = withBodyHint(spec.handler)
 */
export function withBodyHint(handler: Handler): Handler {
  return (params: unknown, service: Service) => {
    const header = service.headers['content-type'];
    const hint = bodyHint(Array.isArray(header) ? header[0] : header, service.rawBody);
    if (hint !== undefined) service.warn({ hint: 'content-type', msg: hint });
    return handler(params, service);
  };
}
