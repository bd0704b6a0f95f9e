/**
 * `cloudfn doctor`: the troubleshooting rules of docs/platform-contract.md#signing, checked as
 * far as it can be offline, one line per check.
 */
import { sign, verify } from 'node:crypto';
import { parseAuthorization } from './authorization.js';
import { diagnoseRequest, escapeNonAscii, sortKeys } from './diagnose.js';
import { inspectKey, keyFingerprint } from './key-tools.js';
import { loadPrivateKey, loadPublicKey, type KeyInput } from './keys.js';
import { requestBytes, showLineEnds, type RawBody } from './string-to-sign.js';
import {
  checkTimestamp,
  clockSeconds,
  DEFAULT_MAX_AGE_SECONDS,
  DEFAULT_MAX_FUTURE_SKEW_SECONDS,
  windowOption,
  type Clock,
} from './window.js';

/** One line of the report: passed, failed (with the fix) or a warning. */
export interface DoctorCheck {
  status: 'pass' | 'fail' | 'warn';
  /** What was checked, e.g. "the key pair signs and verifies". */
  title: string;
  /** What was found or how to fix it. */
  detail?: string;
}

/** What `runDoctor` checks. Only the private key is needed; every other check runs when its input is given. */
export interface DoctorOptions {
  /** The app private key used to sign. */
  privateKey: KeyInput;
  /** The public key uploaded to the platform (the text from the console). */
  publicKey?: KeyInput;
  /** The key_version the requests name. */
  keyVersion?: string;
  /** The platform public key from the console, to check it is usable and not mixed up. */
  platformPublicKey?: KeyInput;
  /** The body as sent, to check it survives the usual handling. */
  body?: RawBody;
  /** The request, to show its string to sign and, with `authorization`, to check it. */
  method?: string;
  url?: string;
  /** A `Platform-Authorization` value that was sent, to verify against the pair and check its timestamp against `now`. */
  authorization?: string;
  /** The clock the header's timestamp is checked against. @default Date.now */
  now?: Clock;
  /** Oldest timestamp the platform accepts, in seconds. @default 3600 */
  maxAgeSeconds?: number;
}

/**
 * Runs the checks in the order of the platform contract's troubleshooting rules (Signing) and
 * gives one result per line.
 * @example for (const c of runDoctor({ privateKey: 'app_private_key.pem', publicKey: 'uploaded.pem' })) console.log(c.status, c.title)
 */
export function runDoctor(options: DoctorOptions): DoctorCheck[] {
  const checks: DoctorCheck[] = [];
  const privateReport = inspectKey(options.privateKey);
  let privateKey;
  try {
    privateKey = loadPrivateKey(options.privateKey);
    checks.push({
      status: 'pass',
      title: 'the private key is RSA 2048',
      detail: `${privateReport.encoding ?? 'key'} private key, ${privateReport.fingerprint ?? ''}`,
    });
  } catch (error) {
    checks.push({ status: 'fail', title: 'the private key is RSA 2048', detail: (error as Error).message });
    return checks;
  }
  // Rule 1: the pair signs and verifies.
  const probe = Buffer.from('cloudfn doctor\n');
  const ownPublic = loadPublicKey(privateKey);
  checks.push(
    verify('sha256', probe, ownPublic, sign('sha256', probe, privateKey))
      ? { status: 'pass', title: 'the key pair signs and verifies (rule 1)' }
      : {
          status: 'fail',
          title: 'the key pair signs and verifies (rule 1)',
          detail: 'the private key does not verify its own signature; generate a new pair: cloudfn keys generate',
        },
  );
  // Rules 2 and 3: the uploaded public key is this pair's, in the upload format.
  if (options.publicKey === undefined) {
    checks.push({
      status: 'warn',
      title: 'the uploaded public key matches (rules 2, 3)',
      detail: 'not checked: pass --public-key with the text uploaded to the console',
    });
  } else {
    const report = inspectKey(options.publicKey);
    if (!report.ok) {
      checks.push({
        status: 'fail',
        title: 'the uploaded public key is usable (rules 2, 3)',
        detail: report.problems.join('; '),
      });
    } else if (report.kind !== 'public') {
      checks.push({
        status: 'fail',
        title: 'the uploaded public key is usable (rules 2, 3)',
        detail: 'this is a private key: upload the public key only (cloudfn keys convert --in <private> --to spki)',
      });
    } else if (report.fingerprint !== keyFingerprint(privateKey)) {
      checks.push({
        status: 'fail',
        title: 'the uploaded public key matches the private key (rule 3)',
        detail: `uploaded ${report.fingerprint}, private key's ${keyFingerprint(privateKey)}: upload the output of cloudfn keys convert --in <private> --to spki, then use its new key_version`,
      });
    } else {
      checks.push({
        status: 'pass',
        title: 'the uploaded public key matches the private key (rule 3)',
        detail: `${report.encoding} ${report.fingerprint}`,
      });
    }
  }
  // Rule 4: key_version.
  checks.push(
    options.keyVersion === undefined || options.keyVersion === ''
      ? {
          status: 'warn',
          title: 'key_version is given (rule 4)',
          detail: 'pass --key-version with the version the key settings page shows for this public key',
        }
      : {
          status: 'pass',
          title: 'key_version is given (rule 4)',
          detail: `${options.keyVersion}: the key settings page must show it beside ${keyFingerprint(privateKey)}`,
        },
  );
  if (options.platformPublicKey !== undefined) checks.push(platformKeyCheck(options.platformPublicKey, privateKey));
  // Rules 5 and 7: the body survives the usual handling.
  if (options.body !== undefined) checks.push(...bodyChecks(options.body));
  // Rule 6: the string to sign.
  if (options.method !== undefined && options.url !== undefined) checks.push(...requestChecks(options, privateKey));
  if (options.authorization !== undefined) {
    const check = timestampCheck(options);
    if (check !== undefined) checks.push(check);
  }
  return checks;
}

/**
 * The header's timestamp against this machine's clock: a header older than the window (or made
 * with a clock far ahead, or in milliseconds) is refused by the platform however good the
 * signature is. Undefined when the header cannot be parsed (reported by the request check).
 */
function timestampCheck(options: DoctorOptions): DoctorCheck | undefined {
  const title = "the header's timestamp is inside the one-hour window";
  let timestamp: string;
  try {
    timestamp = parseAuthorization(options.authorization).timestamp;
  } catch (error) {
    if (options.method !== undefined && options.url !== undefined) return undefined;
    return {
      status: 'fail',
      title: 'the Platform-Authorization header is well formed',
      detail: (error as Error).message,
    };
  }
  const maxAge = windowOption(options.maxAgeSeconds, 'maxAgeSeconds', DEFAULT_MAX_AGE_SECONDS);
  const now = clockSeconds(options.now);
  try {
    checkTimestamp(timestamp, now, maxAge, DEFAULT_MAX_FUTURE_SKEW_SECONDS);
  } catch (error) {
    return { status: 'fail', title, detail: `${(error as Error).message} (this machine's clock reads ${now})` };
  }
  return {
    status: 'pass',
    title,
    detail: `${now - Number(timestamp)} s old by this machine's clock; the platform accepts up to ${maxAge} s`,
  };
}

function platformKeyCheck(input: KeyInput, privateKey: ReturnType<typeof loadPrivateKey>): DoctorCheck {
  const title = 'the platform public key is usable';
  const report = inspectKey(input);
  if (!report.ok) return { status: 'fail', title, detail: report.problems.join('; ') };
  if (report.fingerprint === keyFingerprint(privateKey)) {
    return {
      status: 'fail',
      title,
      detail:
        "this is your own app key, not the platform's: copy the platform public key from the console's key settings",
    };
  }
  return { status: 'pass', title, detail: `${report.fingerprint}; it verifies responses and callbacks` };
}

/** The body checks: each change the body would not survive, with what to do. */
export function bodyChecks(body: RawBody): DoctorCheck[] {
  const bytes =
    typeof body === 'string'
      ? Buffer.from(body, 'utf8')
      : Buffer.isBuffer(body)
        ? body
        : Buffer.from(body as Uint8Array);
  const text = bytes.toString('utf8');
  const checks: DoctorCheck[] = [];
  if (!Buffer.from(text, 'utf8').equals(bytes)) {
    checks.push({
      status: 'fail',
      title: 'the body is UTF-8',
      detail: 'it has bytes that are not UTF-8; JSON bodies must be UTF-8, and text tools will change these bytes',
    });
  }
  if (text.endsWith('\n')) {
    checks.push({
      status: 'warn',
      title: 'the body has no trailing LF',
      detail:
        'it ends with LF: sign it with the LF (the string to sign then ends with two LFs) and send it with curl --data-binary, not -d, which strips it',
    });
  }
  if (text.includes('\r\n')) {
    checks.push({
      status: 'warn',
      title: 'the body has no CRLF',
      detail: 'it has CRLF line ends: git or an editor may turn them into LF between signing and sending',
    });
  }
  if (hasLiteralBackslashN(text)) {
    checks.push({
      status: 'warn',
      title: 'the body has no literal \\n',
      detail:
        "it holds the two characters \\n outside JSON: in a shell, '\\n' in single quotes is not a line feed; use $'...' or a file",
    });
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    if (text.trim() !== '')
      checks.push({
        status: 'warn',
        title: 'the body is JSON',
        detail: "it is not JSON (the platform's bodies are JSON); it is signed as is",
      });
    return checks;
  }
  const compact = JSON.stringify(value);
  if (compact === text) {
    checks.push({
      status: 'pass',
      title: 'the body is stable (rule 5)',
      detail: 'parsing and writing it again gives the same bytes',
    });
  } else {
    const why: string[] = [];
    if (/\\u[0-9a-fA-F]{4}/.test(text)) why.push('it has \\u escapes that JSON.stringify writes as the characters');
    if (text.includes('\\/')) why.push('it has \\/ that JSON.stringify writes as /');
    if (/[\n\t ]/.test(text.replace(/"(?:[^"\\]|\\.)*"/g, ''))) why.push('it has blanks or line breaks between tokens');
    if (why.length === 0) why.push('its numbers or escapes are written differently');
    checks.push({
      status: 'warn',
      title: 'the body is stable (rule 5)',
      detail: `re-serializing changes it: ${why.join('; ')}. Sign and send these exact bytes; never sign JSON.stringify(JSON.parse(body))`,
    });
  }
  if (JSON.stringify(sortKeys(value)) !== compact) {
    checks.push({
      status: 'warn',
      title: 'the key order is safe',
      detail:
        'its keys are not sorted: a verifier that binds the body to a typed object or sorted map reorders them; verify the raw text',
    });
  }
  // biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the check
  if (/[^\x00-\x7f]/.test(text)) {
    checks.push({
      status: 'warn',
      title: 'non-ASCII text is sent as is (rule 7)',
      detail: `it has non-ASCII characters: a serializer that escapes them (${escapeNonAscii('"中"')}) on one side only breaks the signature; sign the bytes you send`,
    });
  }
  return checks;
}

function requestChecks(options: DoctorOptions, privateKey: ReturnType<typeof loadPrivateKey>): DoctorCheck[] {
  const title = 'the string to sign matches the request (rule 6)';
  const timestamp = '1700000000';
  let shown: string;
  try {
    shown = showLineEnds(
      requestBytes({
        method: options.method!,
        url: options.url!,
        timestamp,
        nonce: 'NONCE',
        body: options.body,
      }).toString('utf8'),
    );
  } catch (error) {
    return [{ status: 'fail', title, detail: (error as Error).message }];
  }
  if (options.authorization === undefined) {
    return [
      {
        status: 'pass',
        title,
        detail: `it is these five lines (⏎ is LF; timestamp and nonce are examples):\n${shown}`,
      },
    ];
  }
  let parts;
  try {
    parts = parseAuthorization(options.authorization);
  } catch (error) {
    return [
      { status: 'fail', title: 'the Platform-Authorization header is well formed', detail: (error as Error).message },
    ];
  }
  const checks: DoctorCheck[] = [];
  if (options.keyVersion !== undefined && parts.keyVersion !== options.keyVersion) {
    checks.push({
      status: 'fail',
      title: 'the header names this key_version (rule 4)',
      detail: `it names ${parts.keyVersion}, the key is ${options.keyVersion}`,
    });
  }
  const data = requestBytes({
    method: options.method!,
    url: options.url!,
    timestamp: parts.timestamp,
    nonce: parts.nonce,
    body: options.body,
  });
  const signature = Buffer.from(parts.signature, 'base64');
  if (verify('sha256', data, loadPublicKey(privateKey), signature)) {
    checks.push({
      status: 'pass',
      title,
      detail: "the header's signature verifies over this method, URL and body with this key pair",
    });
    return checks;
  }
  const cause = diagnoseRequest({
    publicKey: privateKey,
    method: options.method!,
    url: options.url!,
    timestamp: parts.timestamp,
    nonce: parts.nonce,
    body: options.body,
    signature: parts.signature,
  });
  checks.push({
    status: 'fail',
    title,
    detail:
      cause ??
      'the signature does not verify with this key pair over this request: it was made by another private key, or over another method, URL or body',
  });
  return checks;
}

/**
 * True when a body holds the two characters `\n` outside JSON, the mark of `'...\n...'` typed
 * in single quotes in a shell, where it is not a line feed.
 * @example hasLiteralBackslashN('a\\nb') // true
 */
export function hasLiteralBackslashN(text: string): boolean {
  return /\\n/.test(text) && !isJson(text);
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}
