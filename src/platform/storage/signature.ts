/**
 * The `TOS4-HMAC-SHA256` signature of a TOS request, checked as TOS checks it: from the
 * `Authorization` header (with `x-tos-date`), or from a presigned URL's query (`X-Tos-Algorithm`,
 * `X-Tos-Credential`, `X-Tos-Date`, `X-Tos-Expires`, `X-Tos-SignedHeaders`, `X-Tos-Signature`).
 * The canonical request is the SDK's (`SignersV4` of @volcengine/tos-sdk): method, the key's path
 * (encodeURIComponent with `/` kept and `!'()*` escaped), the query sorted by name, the signed
 * headers as `name:value` lines, their names, and the payload hash (`UNSIGNED-PAYLOAD`). The
 * signing key is HMAC-SHA256 chained over the date, the region, `tos` and `request`, starting
 * from the secret key itself.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

/** The local keys. */
export interface TosKeys {
  readonly accessKey: string;
  readonly secretKey: string;
}

/** What the verifier reads of a request. */
export interface SignedRequest {
  readonly method: string;
  /** The path as sent (still percent-encoded), without the query: `/a%2Fb.txt`. */
  readonly path: string;
  /** The query string as sent, without `?`. */
  readonly query: string;
  /** The request's headers, names in lowercase (node's `req.headers`); `host` is the platform host. */
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
}

/** A refusal: TOS's code, the message for the client, and what the dev log says did not match. */
export interface SignatureRefusal {
  readonly code: 'SignatureDoesNotMatch' | 'AccessDenied' | 'InvalidAccessKeyId' | 'RequestTimeTooSkewed';
  readonly message: string;
  /** For the dev log: the canonical request and string to sign computed here, or what was missing. */
  readonly log: string;
  /** The canonical request and string to sign, for the error body (as S3 returns them). */
  readonly canonicalRequest?: string;
  readonly stringToSign?: string;
}

export const ALGORITHM = 'TOS4-HMAC-SHA256';
const SERVICE = 'tos';
const TERMINATOR = 'request';
const UNSIGNED_PAYLOAD = 'UNSIGNED-PAYLOAD';
/** How far a header-signed request's `x-tos-date` may be from now, as TOS allows. */
const MAX_SKEW_MS = 15 * 60 * 1000;
/** The longest presigned URL TOS mints: 7 days. */
const MAX_EXPIRES_S = 604_800;

/** encodeURIComponent, with the characters it leaves that the SDK escapes (`!'()*`). */
export function tosEncode(text: string): string {
  return encodeURIComponent(text).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/** The canonical path of a raw path: decoded, then encoded again with `/` kept. */
export function canonicalPath(rawPath: string): string {
  return tosEncode(decodeURIComponent(rawPath)).replace(/%2F/g, '/');
}

/** The query's pairs, decoded (`+` is a space, as axios writes it). */
export function queryPairs(query: string): [string, string][] {
  if (query === '') return [];
  return query
    .split('&')
    .filter((part) => part !== '')
    .map((part) => {
      const at = part.indexOf('=');
      const name = at === -1 ? part : part.slice(0, at);
      const value = at === -1 ? '' : part.slice(at + 1);
      return [decodeQuery(name), decodeQuery(value)];
    });
}

function decodeQuery(text: string): string {
  return decodeURIComponent(text.replace(/\+/g, ' '));
}

function canonicalQuery(pairs: readonly [string, string][]): string {
  return [...pairs]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([name, value]) => `${tosEncode(name)}=${tosEncode(value)}`)
    .join('&');
}

function headerValue(headers: SignedRequest['headers'], name: string): string | undefined {
  const value = headers[name];
  if (value === undefined) return undefined;
  return (Array.isArray(value) ? value.join(',') : value).replace(/\s+/g, ' ').trim();
}

const hmac = (key: string | Buffer, data: string): Buffer => createHmac('sha256', key).update(data).digest();
const sha256 = (data: string): string => createHash('sha256').update(data).digest('hex');

/**
 * The signature of a canonical request, as the SDK computes it.
 * @example sign('secret', '20261206T000000Z', 'cn-beijing', canonical)
 */
export function signCanonical(
  secretKey: string,
  datetime: string,
  region: string,
  canonicalRequest: string,
): { signature: string; stringToSign: string } {
  const date = datetime.slice(0, 8);
  const scope = `${date}/${region}/${SERVICE}/${TERMINATOR}`;
  const stringToSign = [ALGORITHM, datetime, scope, sha256(canonicalRequest)].join('\n');
  const key = hmac(hmac(hmac(hmac(secretKey, date), region), SERVICE), TERMINATOR);
  return { signature: createHmac('sha256', key).update(stringToSign).digest('hex'), stringToSign };
}

/** The fields a signature declares, from the header or the query. */
interface Declared {
  credential: string;
  signedHeaders: string;
  signature: string;
  datetime: string;
  payloadHash: string;
  /** The query pairs that enter the canonical query. */
  pairs: [string, string][];
  expires?: number;
}

/** Whether the request carries a presigned URL's query. */
export function isPresigned(query: string): boolean {
  return /(?:^|&)X-Tos-Signature=/i.test(query);
}

/**
 * Checks a request's signature with the local keys; undefined when it holds.
 * @example const refusal = verifySignature(request, { accessKey, secretKey }); if (refusal) answer 403
 */
export function verifySignature(request: SignedRequest, keys: TosKeys, now = Date.now()): SignatureRefusal | undefined {
  let pairs: [string, string][];
  try {
    pairs = queryPairs(request.query);
  } catch {
    return refusal(
      'AccessDenied',
      `the query ${JSON.stringify(request.query.slice(0, 80))} is not valid percent-encoding`,
    );
  }
  const declared = isPresigned(request.query) ? fromQuery(pairs) : fromHeader(request.headers, pairs);
  if ('code' in declared) return declared;

  const [accessKey, date, region, service, terminator] = declared.credential.split('/');
  if (
    accessKey === undefined ||
    region === undefined ||
    service !== SERVICE ||
    terminator !== TERMINATOR ||
    date !== declared.datetime.slice(0, 8)
  )
    return refusal(
      'AccessDenied',
      `the credential ${JSON.stringify(declared.credential)} is not <access key>/<yyyymmdd of the date>/<region>/tos/request`,
    );
  if (accessKey !== keys.accessKey)
    return refusal(
      'InvalidAccessKeyId',
      `the access key ${JSON.stringify(accessKey)} is not the local TOS's; sign with TOS_ACCESS_KEY (${keys.accessKey})`,
    );

  const signedTime = parseDatetime(declared.datetime);
  if (signedTime === undefined)
    return refusal('AccessDenied', `the date ${JSON.stringify(declared.datetime)} is not yyyymmddThhmmssZ`);
  if (declared.expires !== undefined) {
    if (now > signedTime + declared.expires * 1000)
      return refusal(
        'AccessDenied',
        `Request has expired: the URL was signed at ${new Date(signedTime).toISOString()} for ${declared.expires} s, so it expired at ${new Date(signedTime + declared.expires * 1000).toISOString()}; mint a new one`,
      );
  } else if (Math.abs(now - signedTime) > MAX_SKEW_MS) {
    return refusal(
      'RequestTimeTooSkewed',
      `the request was signed at ${new Date(signedTime).toISOString()}, more than 15 minutes from the server's ${new Date(now).toISOString()}; set the clock right`,
    );
  }

  const names = declared.signedHeaders.split(';').filter((name) => name !== '');
  if (!names.includes('host'))
    return refusal(
      'AccessDenied',
      `the signed headers ${JSON.stringify(declared.signedHeaders)} leave out host; sign host`,
    );
  const lines: string[] = [];
  for (const name of names) {
    const value = headerValue(request.headers, name);
    if (value === undefined)
      return refusal(
        'SignatureDoesNotMatch',
        `the signed header ${name} is not in the request; send every header you sign`,
      );
    lines.push(`${name}:${value}`);
  }
  let path: string;
  try {
    path = canonicalPath(request.path);
  } catch {
    return refusal('AccessDenied', `the path ${JSON.stringify(request.path)} is not valid percent-encoding`);
  }
  const canonicalRequest = [
    request.method.toUpperCase(),
    path,
    canonicalQuery(declared.pairs),
    `${lines.join('\n')}\n`,
    names.join(';'),
    declared.payloadHash,
  ].join('\n');
  const { signature, stringToSign } = signCanonical(keys.secretKey, declared.datetime, region, canonicalRequest);
  const given = Buffer.from(declared.signature, 'utf8');
  const expected = Buffer.from(signature, 'utf8');
  if (given.length === expected.length && timingSafeEqual(given, expected)) return undefined;
  return {
    code: 'SignatureDoesNotMatch',
    message: `the signature does not match the one computed with the local secret key (TOS_SECRET_KEY): either the request was signed with another secret, or a signed part (${names.join(', ')}, the method, the path or the query) changed after signing`,
    log: `the signature ${declared.signature} does not match ${signature}, computed over this string to sign:\n${stringToSign}\nof this canonical request:\n${canonicalRequest}\nCompare with the SDK's (DEBUG=TOS shows it): a different line names the part that changed; the same lines mean another secret key than TOS_SECRET_KEY`,
    canonicalRequest,
    stringToSign,
  };
}

function refusal(code: SignatureRefusal['code'], message: string): SignatureRefusal {
  return { code, message, log: message };
}

function fromHeader(headers: SignedRequest['headers'], pairs: [string, string][]): Declared | SignatureRefusal {
  const authorization = headerValue(headers, 'authorization');
  if (authorization === undefined)
    return refusal(
      'AccessDenied',
      'the request is anonymous (no Authorization header, no X-Tos-Signature query) and the bucket is private; sign it with the SDK or mint a presigned URL',
    );
  const match = /^(\S+)\s+(.*)$/.exec(authorization);
  if (match?.[1] !== ALGORITHM)
    return refusal(
      'AccessDenied',
      `the Authorization header uses ${JSON.stringify(match?.[1] ?? authorization)}; sign with ${ALGORITHM}`,
    );
  const fields = new Map<string, string>();
  for (const part of match[2]!.split(',')) {
    const at = part.indexOf('=');
    if (at > 0) fields.set(part.slice(0, at).trim(), part.slice(at + 1).trim());
  }
  const credential = fields.get('Credential');
  const signedHeaders = fields.get('SignedHeaders');
  const signature = fields.get('Signature');
  if (credential === undefined || signedHeaders === undefined || signature === undefined)
    return refusal('AccessDenied', 'the Authorization header needs Credential=, SignedHeaders= and Signature=');
  const datetime = headerValue(headers, 'x-tos-date');
  if (datetime === undefined)
    return refusal('AccessDenied', 'the request has no x-tos-date header; sign it with the SDK');
  return {
    credential,
    signedHeaders,
    signature,
    datetime,
    payloadHash: headerValue(headers, 'x-tos-content-sha256') ?? UNSIGNED_PAYLOAD,
    pairs,
  };
}

function fromQuery(pairs: [string, string][]): Declared | SignatureRefusal {
  const get = (name: string) => pairs.find(([key]) => key === name)?.[1];
  const algorithm = get('X-Tos-Algorithm');
  if (algorithm !== ALGORITHM)
    return refusal('AccessDenied', `X-Tos-Algorithm is ${JSON.stringify(algorithm ?? '')}; presign with ${ALGORITHM}`);
  const credential = get('X-Tos-Credential');
  const datetime = get('X-Tos-Date');
  const expiresText = get('X-Tos-Expires');
  const signedHeaders = get('X-Tos-SignedHeaders');
  const signature = get('X-Tos-Signature');
  if (!credential || !datetime || !expiresText || !signedHeaders || !signature)
    return refusal(
      'AccessDenied',
      'a presigned URL needs X-Tos-Credential, X-Tos-Date, X-Tos-Expires, X-Tos-SignedHeaders and X-Tos-Signature; mint it with getPreSignedUrl',
    );
  const expires = Number(expiresText);
  if (!/^\d+$/.test(expiresText) || expires < 1 || expires > MAX_EXPIRES_S)
    return refusal(
      'AccessDenied',
      `X-Tos-Expires ${expiresText} is not a number of seconds from 1 to ${MAX_EXPIRES_S}`,
    );
  return {
    credential,
    signedHeaders,
    signature,
    datetime,
    payloadHash: get('X-Tos-Content-Sha256') ?? UNSIGNED_PAYLOAD,
    pairs: pairs.filter(([name]) => name !== 'X-Tos-Signature'),
    expires,
  };
}

/** `yyyymmddThhmmssZ` as milliseconds, or undefined. */
function parseDatetime(text: string): number | undefined {
  const match = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(text);
  if (match === null) return undefined;
  const [, y, mo, d, h, mi, s] = match.map(Number) as [number, number, number, number, number, number, number];
  const time = Date.UTC(y, mo - 1, d, h, mi, s);
  return Number.isNaN(time) ? undefined : time;
}
