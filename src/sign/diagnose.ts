/**
 * When a signature does not verify, finding the likely slip: each known mistake of the
 * troubleshooting list in docs/platform-contract.md#signing (and of the schemes it comes from)
 * is replayed on the string to sign, and the one whose variant verifies is named.
 */
import { verify } from 'node:crypto';
import { loadPublicKey, type KeyInput } from './keys.js';
import {
  bodyBuffer,
  linesBytes,
  methodText,
  receivedPath,
  responseBytes,
  signedPath,
  type RawBody,
} from './string-to-sign.js';

/** A variant of the signed data and the mistake that would produce it. */
interface Variant {
  cause: string;
  data: () => Buffer | undefined;
}

/** The parts of a request whose signature failed. */
export interface RequestDiagnosis {
  publicKey: KeyInput;
  method: string;
  url: string;
  timestamp: string;
  nonce: string;
  body?: RawBody;
  /** Base64 signature as received. */
  signature: string;
}

/**
 * Names the likely cause of a request signature that does not verify, or gives undefined when
 * none of the known slips explains it (then the key pair or key_version is the suspect).
 * @example diagnoseRequest({ publicKey, method: 'POST', url: '/v1/x', timestamp, nonce, body, signature })
 * // 'the signer dropped the body's trailing LF'
 */
export function diagnoseRequest(parts: RequestDiagnosis): string | undefined {
  const key = loadPublicKey(parts.publicKey);
  const signature = Buffer.from(parts.signature, 'base64');
  const text = bodyBuffer(parts.body).toString('utf8');
  let path = parts.url;
  try {
    path = receivedPath(parts.url);
  } catch {
    // an unusable URL is reported by the caller; the variants below still run on it as given
  }
  let method: string;
  try {
    method = methodText(parts.method);
  } catch {
    method = String(parts.method).toUpperCase();
  }
  const build = (changes: Partial<{ url: string; body: string }>) => () =>
    linesBytes(method, changes.url ?? path, parts.timestamp, parts.nonce, changes.body ?? text);
  const lines = (m: string, url: string, body: string, end: string) => () =>
    Buffer.from([m, url, parts.timestamp, parts.nonce, body].join(end) + end, 'utf8');
  const noQuery = path.includes('?') ? path.slice(0, path.indexOf('?')) : undefined;
  const typed = decodeWireOnly(path);
  let wire: string | undefined;
  try {
    wire = signedPath(path);
  } catch {
    wire = undefined;
  }
  const variants: Variant[] = [
    ...bodyVariants(text).map(([cause, body]) => ({ cause, data: build({ body }) })),
    {
      cause: `the signer signed the URL as typed (${JSON.stringify(typed)}), but it went on the wire percent-encoded (${JSON.stringify(path)}); sign the URL as fetch sends it (signRequest and cloudfn sign do)`,
      data: typed === path ? () => undefined : build({ url: typed }),
    },
    {
      cause: `the URL given here is not the one received: fetch sends ${JSON.stringify(path)} as ${JSON.stringify(wire)}, and that was signed; verify the path and query as received (req.url)`,
      data: wire === undefined || wire === path ? () => undefined : build({ url: wire }),
    },
    {
      cause: 'the signer left the query string out of the URL line; sign the path with ? and the query exactly as sent',
      data: noQuery === undefined ? () => undefined : build({ url: noQuery }),
    },
    {
      cause: 'the signer signed the absolute URL; sign only the path and query (no scheme, no host)',
      data: () => (/^[a-z]+:\/\//i.test(parts.url) ? lines(method, parts.url, text, '\n')() : undefined),
    },
    {
      cause: 'the signer signed the method in lower case; the first line is the upper-case method',
      data: lines(parts.method.toLowerCase(), path, text, '\n'),
    },
    {
      cause:
        "the signer wrote the line ends as the two characters \\n (single quotes in a shell); use real LF bytes (double quotes, $'...', or cloudfn sign)",
      data: lines(method, path, text, '\\n'),
    },
    {
      cause: 'the signer ended the lines with CRLF; every line ends with LF (0x0A) only',
      data: lines(method, path, text, '\r\n'),
    },
    {
      cause: 'the signer left out the LF after the body; the last line ends with LF too',
      data: () => lines(method, path, text, '\n')().subarray(0, -1),
    },
    {
      cause: 'the signer signed an empty body, yet a body was sent; sign the bytes you send',
      data: text === '' ? () => undefined : build({ body: '' }),
    },
  ];
  return firstVerifying(variants, key, signature);
}

/** The parts of a response or callback whose signature failed. */
export interface ResponseDiagnosis {
  publicKey: KeyInput;
  timestamp: string;
  nonce: string;
  body?: RawBody;
  signature: string;
}

/**
 * Names the likely cause of a response or callback signature that does not verify.
 * @example diagnoseResponse({ publicKey, timestamp, nonce, body: JSON.stringify(parsed), signature })
 * // 'the body was re-serialized after it was received: ...'
 */
export function diagnoseResponse(parts: ResponseDiagnosis): string | undefined {
  const key = loadPublicKey(parts.publicKey);
  const signature = Buffer.from(parts.signature, 'base64');
  const text = bodyBuffer(parts.body).toString('utf8');
  const variants: Variant[] = [
    ...bodyVariants(text).map(([cause, body]) => ({
      cause,
      data: () => responseBytes(parts.timestamp, parts.nonce, body),
    })),
    {
      cause: 'the lines were joined with the two characters \\n instead of LF bytes; use real line feeds',
      data: () => Buffer.from(`${parts.timestamp}\\n${parts.nonce}\\n${text}\\n`),
    },
    {
      cause: 'the LF after the body was left out; the last line ends with LF too',
      data: () => Buffer.from(`${parts.timestamp}\n${parts.nonce}\n${text}`),
    },
  ];
  return firstVerifying(variants, key, signature);
}

function firstVerifying(
  variants: Variant[],
  key: ReturnType<typeof loadPublicKey>,
  signature: Buffer,
): string | undefined {
  for (const variant of variants) {
    const data = variant.data();
    if (data !== undefined && verify('sha256', data, key, signature)) return variant.cause;
  }
  return undefined;
}

/**
 * Bodies the other side may have signed instead of the one given, each with the cause. Exported
 * for `cloudfn doctor`, which reports the same changes as risks of a body.
 */
export function bodyVariants(body: string): Array<[cause: string, body: string]> {
  const out: Array<[string, string]> = [];
  const add = (cause: string, variant: string | undefined) => {
    if (variant !== undefined && variant !== body && !out.some(([, b]) => b === variant)) out.push([cause, variant]);
  };
  add(
    'the body lost its trailing LF (shell $(cat), an editor or a trim); sign and send the same bytes',
    body.endsWith('\n') ? body.replace(/\r?\n$/, '') : undefined,
  );
  add('the body gained a trailing LF (echo, an editor, a heredoc); sign and send the same bytes', body + '\n');
  add(
    "the body's line ends changed from CRLF to LF (git, an editor); sign and send the same bytes",
    body.includes('\r\n') ? body.replace(/\r\n/g, '\n') : undefined,
  );
  add(
    "the body's line ends changed from LF to CRLF (a Windows tool); sign and send the same bytes",
    body.includes('\n') && !body.includes('\r\n') ? body.replace(/\n/g, '\r\n') : undefined,
  );
  // biome-ignore lint/suspicious/noControlCharactersInRegex: finding control or non-ASCII characters is the check
  if (/[^\x00-\x7f]/.test(body)) {
    const utf8 = Buffer.from(body, 'utf8');
    add(
      `the body's UTF-8 bytes were read as latin1 on the signer's side (mojibake: ${JSON.stringify(firstNonAscii(body))} became ${JSON.stringify(firstNonAscii(utf8.toString('latin1')))}); decode and send the body as UTF-8`,
      utf8.toString('latin1'),
    );
    add(
      `the body's UTF-8 bytes were read as windows-1252 on the signer's side (mojibake: ${JSON.stringify(firstNonAscii(body))} became ${JSON.stringify(firstNonAscii(CP1252.decode(utf8)))}); decode and send the body as UTF-8`,
      CP1252.decode(utf8),
    );
    const unmangled = fromLatin1Mojibake(body);
    if (unmangled !== undefined) {
      add(
        `the body here is mojibake: UTF-8 that was read as latin1 somewhere on the way (${JSON.stringify(firstNonAscii(body))} is ${JSON.stringify(firstNonAscii(unmangled))}); verify the raw bytes, decoded as UTF-8`,
        unmangled,
      );
    }
  }
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    return out;
  }
  const compact = JSON.stringify(value);
  add(
    'the body was re-serialized (parsed and written again with JSON.stringify); sign and verify the raw text as sent',
    compact,
  );
  add(
    'non-ASCII text was escaped as \\u4f60-style escapes on one side only (the usual cause when only some interfaces fail); sign the bytes as sent',
    escapeNonAscii(compact),
  );
  add('"/" was escaped as \\/ on one side only; sign the bytes as sent', compact.replace(/\//g, '\\/'));
  add(
    'the JSON keys were reordered (bound to a typed object or a sorted map); sign and verify the raw text as sent',
    JSON.stringify(sortKeys(value)),
  );
  add('the body was pretty-printed on one side only; sign the bytes as sent', JSON.stringify(value, null, 2));
  add('the body was pretty-printed on one side only; sign the bytes as sent', JSON.stringify(value, null, 4));
  return out;
}

const CP1252 = new TextDecoder('windows-1252');

/** The first run of non-ASCII characters (up to 4), to show what mojibake did. */
function firstNonAscii(text: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: finding control or non-ASCII characters is the check
  return /[^\x00-\x7f]{1,4}/.exec(text)?.[0] ?? '';
}

/**
 * The text before a latin1 misreading, when `text` is one: every character fits a byte, some
 * are above 0x7f, and those bytes are valid UTF-8.
 */
function fromLatin1Mojibake(text: string): string | undefined {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: finding control or non-ASCII characters is the check
  if (/[^\x00-\xff]/.test(text)) return undefined;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(Buffer.from(text, 'latin1'));
  } catch {
    return undefined;
  }
}

/**
 * A received path with its percent-encoded runs decoded where they spell characters that URL
 * serialization encodes (a blank, non-ASCII text, a quote): the URL a signer typed before fetch
 * encoded it. Other escapes (`%2F`, `%7e`) are left alone, as a signer writes them.
 */
export function decodeWireOnly(path: string): string {
  return path.replace(/(?:%[0-9A-Fa-f]{2})+/g, (run) => {
    let decoded: string;
    try {
      decoded = decodeURIComponent(run);
    } catch {
      return run;
    }
    // biome-ignore lint/suspicious/noControlCharactersInRegex: finding control or non-ASCII characters is the check
    return /^[\x00-\x20"'<>^`{|}\x7f-\u{10ffff}]+$/u.test(decoded) ? decoded : run;
  });
}

/** JSON with every non-ASCII character as a `\u4f60`-style escape, as Java and PHP encoders write by default. */
export function escapeNonAscii(json: string): string {
  return json.replace(/[\u0080-\uffff]/g, (c) => '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0'));
}

/** The value with object keys sorted at every depth. */
export function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value === null || typeof value !== 'object') return value;
  // A null prototype keeps a "__proto__" key an ordinary key.
  const out: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
  for (const key of Object.keys(value).sort()) out[key] = sortKeys((value as Record<string, unknown>)[key]);
  return out;
}
