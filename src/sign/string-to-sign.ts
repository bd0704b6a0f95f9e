/**
 * The strings that get signed (platform contract, Signing): five lines for a request (method,
 * path and query, timestamp, nonce, body), three for a response or callback (timestamp, nonce,
 * body). Every line ends with LF, the last too, even when the body already ends with one. The
 * body is signed as the exact bytes sent, never re-serialized.
 */

/** A body as it travels: text (sent as UTF-8) or bytes. `undefined` and `null` mean empty. */
export type RawBody = string | Buffer | Uint8Array | ArrayBuffer | null | undefined;

/** The parts of a request's string to sign. */
export interface RequestSigningParts {
  /** HTTP method; upper-cased. */
  method: string;
  /** The path and query (`/v1/x?a=1`), or an absolute URL whose scheme and host are dropped; signed as fetch sends it (`signedPath`). */
  url: string;
  /** Seconds since 1970 (a number or decimal text). */
  timestamp: number | string;
  /** The request's nonce. */
  nonce: string;
  /** The exact body sent; empty for GET. */
  body?: RawBody;
}

const ABSOLUTE = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/[^/?#]*/;
const PATH_SPECIAL = /[#\r\n]/;

/**
 * The URL line a signer signs: the path and query exactly as fetch sends them. fetch (undici)
 * sends the WHATWG URL serialization, so this is `pathname + search` of `new URL(url)`: a blank
 * becomes `%20`, `京` becomes `%E4%BA%AC`, a `'` in the query `%27`, `/a/../b` becomes `/b` and
 * `\` becomes `/`, while `%7e` and `~` stay as written (measured on node 20 against a real
 * socket, see test/sign/wire-url.test.ts). An absolute URL loses its scheme and host, a fragment
 * is dropped (it is never sent), and nothing left gives `/`.
 * @example signedPath('https://api.example.com/v1/videos?q=a b') // '/v1/videos?q=a%20b'
 */
export function signedPath(url: string): string {
  const path = receivedPath(url);
  // Already in the form fetch sends: only characters it leaves alone, no dot segment, no `\`.
  if (WIRE_SAFE.test(path) && !DOT_SEGMENT.test(path)) return path;
  // Prefixed, not resolved against a base: `//x` must stay a path, not become a host.
  const wire = new URL('http://h' + path);
  return wire.pathname + wire.search;
}

/** Characters WHATWG URL serialization leaves as written in a path and a query. */
const WIRE_SAFE = /^\/[A-Za-z0-9\-._~!$&()*+,;=:@/%?]*$/;
/** `.` or `..` segments (also as %2e), which URL serialization removes. */
const DOT_SEGMENT = /\/(?:\.|%2e)/i;

/**
 * The URL line a verifier checks: the path and query as received (`req.url`), nothing
 * re-encoded, since the bytes on the wire are what was signed. An absolute URL loses its scheme
 * and host, a fragment is dropped, and nothing left gives `/`.
 * @example receivedPath('https://api.example.com/v1/videos?page=2') // '/v1/videos?page=2'
 */
export function receivedPath(url: string): string {
  if (typeof url !== 'string') throw new TypeError(`url must be a string such as /v1/videos?page=2, got ${typeof url}`);
  // A path as servers receive it (req.url) is the line as is.
  if (url.charCodeAt(0) === 47 && url.charCodeAt(1) !== 47 && !PATH_SPECIAL.test(url)) return url;
  let path = url.replace(ABSOLUTE, '');
  const hash = path.indexOf('#');
  if (hash !== -1) path = path.slice(0, hash);
  if (path === '') return '/';
  if (path[0] === '?') return '/' + path;
  if (path[0] !== '/') {
    throw new TypeError(`url must start with / or be an absolute URL (https://host/path), got ${JSON.stringify(url)}`);
  }
  if (/[\r\n]/.test(path)) throw new TypeError(`url must not contain a line break, got ${JSON.stringify(url)}`);
  return path;
}

/**
 * The body's bytes for signing. Objects are refused: re-serializing JSON changes escapes, key
 * order and blanks, and then the signature covers bytes nobody sent.
 * @example bodyBuffer('{"a":1}').length // 7
 */
export function bodyBuffer(body: RawBody, name = 'body'): Buffer {
  if (body === undefined || body === null) return EMPTY;
  if (typeof body === 'string') return Buffer.from(body, 'utf8');
  if (Buffer.isBuffer(body)) return body;
  if (body instanceof Uint8Array) return Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  if (body instanceof ArrayBuffer) return Buffer.from(body);
  throw rawBodyError(body, name);
}

/**
 * Throws when `body` is a parsed object rather than raw text or bytes (a string, Buffer,
 * typed array, ArrayBuffer, or nothing): checked first, so the message names the mistake.
 * @example assertRawBody(options.body, 'body')
 */
export function assertRawBody(body: unknown, name: string): void {
  if (
    body !== undefined &&
    body !== null &&
    typeof body === 'object' &&
    !(body instanceof Uint8Array) &&
    !(body instanceof ArrayBuffer)
  ) {
    throw rawBodyError(body, name);
  }
}

/** The TypeError for a parsed body handed where raw text or bytes are needed. */
export function rawBodyError(body: unknown, name: string): TypeError {
  return new TypeError(
    `${name} must be the raw text or bytes as sent or received, got ${typeof body === 'object' ? 'an object' : typeof body}; ` +
      're-serializing JSON (JSON.stringify) changes escapes, key order or blanks and breaks the signature',
  );
}

const EMPTY = Buffer.alloc(0);
const LF = Buffer.from('\n');

/** Checks a timestamp is decimal digits and gives it as text. */
export function timestampText(timestamp: number | string): string {
  const text =
    typeof timestamp === 'number' ? (Number.isSafeInteger(timestamp) ? String(timestamp) : '') : String(timestamp);
  if (!/^\d{1,12}$/.test(text)) {
    const ms = /^\d{13}$/.test(text) ? `, which looks like milliseconds; use Math.floor(Date.now() / 1000)` : '';
    throw new TypeError(
      `timestamp must be whole seconds since 1970 in decimal digits, got ${JSON.stringify(timestamp)}${ms}`,
    );
  }
  return text;
}

/** RFC 9110 token characters, upper case. */
const METHOD = /^[!#$%&'*+.^_`|~0-9A-Z-]+$/;

/**
 * Whether a nonce is 1 to 128 characters of printable ASCII without blank, quote, backslash or
 * comma (`/^[\x21\x23-\x2b\x2d-\x5b\x5d-\x7e]{1,128}$/`): safe on a line and in the header.
 * A loop, 0.1 µs faster per verify than that regular expression on Node 24.
 */
export function isNonce(nonce: string): boolean {
  const length = nonce.length;
  if (length === 0 || length > 128) return false;
  for (let i = 0; i < length; i++) {
    const c = nonce.charCodeAt(i);
    if (c < 0x21 || c > 0x7e || c === 0x22 /* " */ || c === 0x2c /* , */ || c === 0x5c /* \ */) return false;
  }
  return true;
}

/** Checks a nonce can go on its line and inside the quoted header field. */
export function nonceText(nonce: string): string {
  if (typeof nonce !== 'string' || !isNonce(nonce)) {
    throw new TypeError(
      `nonce must be 1 to 128 printable ASCII characters without blanks, quotes, backslashes or commas, got ${JSON.stringify(nonce)}`,
    );
  }
  return nonce;
}

/**
 * The request's five lines as bytes, ready for `crypto.sign`.
 * @example requestBytes({ method: 'GET', url: '/v1/x', timestamp: 1700000000, nonce: 'n' })
 */
export function requestBytes(parts: RequestSigningParts): Buffer {
  return linesBytes(
    methodText(parts.method),
    signedPath(parts.url),
    timestampText(parts.timestamp),
    nonceText(parts.nonce),
    parts.body,
  );
}

/** The method line: upper case, a token. The usual methods skip the regex. */
export function methodText(method: string): string {
  if (method === 'POST' || method === 'GET' || method === 'PUT') return method;
  const upper = String(method).toUpperCase();
  if (!METHOD.test(upper))
    throw new TypeError(`method must be a token such as GET or POST, got ${JSON.stringify(method)}`);
  return upper;
}

/**
 * The five lines from parts already checked: the verifiers check timestamp and nonce as
 * `SignatureError`s first, and checking them twice showed up in the verify profile.
 */
export function linesBytes(method: string, path: string, timestamp: string, nonce: string, body: RawBody): Buffer {
  const head = method + '\n' + path + '\n' + timestamp + '\n' + nonce + '\n';
  // Text bodies are the common case: one string, one encode.
  if (body === undefined || body === null || typeof body === 'string')
    return Buffer.from(head + (body ?? '') + '\n', 'utf8');
  return Buffer.concat([Buffer.from(head, 'utf8'), bodyBuffer(body), LF]);
}

/**
 * The exact string to sign for a request: five lines, each ended by LF.
 * @example
 * stringToSign({ method: 'get', url: 'https://api.example.com/v1/videos?page=2', timestamp: 1700000000, nonce: 'abc' })
 * // 'GET\n/v1/videos?page=2\n1700000000\nabc\n\n'
 */
export function stringToSign(parts: RequestSigningParts): string {
  return requestBytes(parts).toString('utf8');
}

/**
 * The three lines of a response or callback (timestamp, nonce, body) as bytes.
 * @example responseBytes('1700000000', 'abc', '{"ok":true}')
 */
export function responseBytes(timestamp: number | string, nonce: string, body: RawBody, name = 'body'): Buffer {
  return checkedResponseBytes(timestampText(timestamp), nonceText(nonce), body, name);
}

/**
 * `responseBytes` of a timestamp and nonce the caller has checked already (the verifiers check
 * them as received, with their own errors): checking them again cost 0.15 µs per verify.
 */
export function checkedResponseBytes(timestamp: string, nonce: string, body: RawBody, name = 'body'): Buffer {
  if (body === undefined || body === null || typeof body === 'string')
    return Buffer.from(`${timestamp}\n${nonce}\n${body ?? ''}\n`, 'utf8');
  return Buffer.concat([Buffer.from(`${timestamp}\n${nonce}\n`, 'utf8'), bodyBuffer(body, name), LF]);
}

/**
 * Where the verifiers write the lines they check when they fit: `crypto.verify` reads them
 * before it returns, so one Buffer serves every call. A fresh Buffer per verify also wears out
 * node's 8 KiB pool every twenty calls, and the scavenges follow.
 */
const scratch = Buffer.allocUnsafeSlow(8192);

/**
 * `checkedResponseBytes` written into a Buffer shared by every call: valid until the next call
 * only, for a verify that reads it at once. A body that may not fit takes a fresh Buffer.
 */
export function checkedResponseView(timestamp: string, nonce: string, body: RawBody, name = 'body'): Uint8Array {
  // Both lines are checked ASCII (digits, the nonce grammar): one byte per character.
  const head = timestamp.length + nonce.length + 2;
  let end: number;
  if (body === undefined || body === null) {
    end = head;
  } else if (typeof body === 'string') {
    // At most 3 UTF-8 bytes per UTF-16 unit (a lone surrogate becomes U+FFFD, 3 bytes).
    if (head + body.length * 3 + 1 > scratch.length) return checkedResponseBytes(timestamp, nonce, body, name);
    end = head + scratch.write(body, head, 'utf8');
  } else if (body instanceof Uint8Array) {
    if (head + body.byteLength + 1 > scratch.length) return checkedResponseBytes(timestamp, nonce, body, name);
    scratch.set(body, head);
    end = head + body.byteLength;
  } else {
    return checkedResponseBytes(timestamp, nonce, body, name);
  }
  let at = writeAscii(timestamp, 0);
  scratch[at++] = 10;
  at = writeAscii(nonce, at);
  scratch[at] = 10;
  scratch[end] = 10;
  return scratch.subarray(0, end + 1);
}

/** Writes ASCII text into the scratch Buffer at `at`, giving the offset after it. */
function writeAscii(text: string, at: number): number {
  for (let i = 0; i < text.length; i++) scratch[at++] = text.charCodeAt(i);
  return at;
}

/**
 * The string to verify for a response or callback: timestamp, nonce, body, each ended by LF.
 * @example responseStringToSign({ timestamp: 1700000000, nonce: 'abc', body: '' }) // '1700000000\nabc\n\n'
 */
export function responseStringToSign(parts: { timestamp: number | string; nonce: string; body?: RawBody }): string {
  return responseBytes(parts.timestamp, parts.nonce, parts.body).toString('utf8');
}

/**
 * Shows a string to sign with its line ends visible, one line per line, for humans.
 * @example showLineEnds('GET\n/\n') // 'GET⏎\n/⏎\n'
 */
export function showLineEnds(text: string): string {
  return text.replace(/\r/g, '␍').replace(/\t/g, '⇥').replace(/\n/g, '⏎\n');
}
