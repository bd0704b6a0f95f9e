/**
 * Header names, in one configurable profile. The defaults are the `Platform-*` names of
 * docs/platform-contract.md#signing; callbacks carry the same three signature headers as
 * responses (the contract leaves the callback header names open; see docs/decisions.md).
 */

/** The header names the scheme uses. */
export interface HeaderProfile {
  /** The request's signature header. @default 'Platform-Authorization' */
  authorization: string;
  /** Response and callback timestamp. @default 'Platform-Timestamp' */
  timestamp: string;
  /** Response and callback nonce. @default 'Platform-Nonce-Str' */
  nonce: string;
  /** Response and callback signature. @default 'Platform-Signature' */
  signature: string;
  /** The platform's request id, quoted when asking for help. @default 'x-platform-logid' */
  logid: string;
}

/**
 * The documented names.
 * @example res.setHeader(defaultHeaderProfile.authorization, authorization)
 */
export const defaultHeaderProfile: Readonly<HeaderProfile> = Object.freeze({
  authorization: 'Platform-Authorization',
  timestamp: 'Platform-Timestamp',
  nonce: 'Platform-Nonce-Str',
  signature: 'Platform-Signature',
  logid: 'x-platform-logid',
});

/**
 * A profile with some names changed, the rest the defaults.
 * @example const profile = createHeaderProfile({ timestamp: 'Wechatpay-Timestamp' })
 */
export function createHeaderProfile(overrides: Partial<HeaderProfile> = {}): Readonly<HeaderProfile> {
  const profile = { ...defaultHeaderProfile };
  for (const [name, value] of Object.entries(overrides) as Array<[keyof HeaderProfile, string | undefined]>) {
    if (value === undefined) continue;
    if (!Object.hasOwn(defaultHeaderProfile, name)) {
      throw new TypeError(
        `header profile has no entry ${name}; the entries are ${Object.keys(defaultHeaderProfile).join(', ')}`,
      );
    }
    if (typeof value !== 'string' || !/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(value)) {
      throw new TypeError(`header profile entry ${name} must be a header name, got ${JSON.stringify(value)}`);
    }
    profile[name] = value;
  }
  return Object.freeze(profile);
}

/** Resolves an optional partial profile. */
export function resolveProfile(profile: Partial<HeaderProfile> | undefined): Readonly<HeaderProfile> {
  return profile === undefined || profile === defaultHeaderProfile
    ? defaultHeaderProfile
    : createHeaderProfile(profile);
}

/** Headers as a fetch `Headers`, node's `IncomingHttpHeaders`, or a plain object with keys in any case. */
export type HeadersInput =
  | { get(name: string): string | null }
  | Readonly<Record<string, string | readonly string[] | number | undefined>>;

/**
 * Reads one header whatever the shape and case. A header repeated with different values is
 * refused: which copy was signed cannot be known.
 * @example readHeader({ 'platform-timestamp': '1700000000' }, 'Platform-Timestamp') // '1700000000'
 */
export function readHeader(headers: HeadersInput, name: string): string | undefined {
  if (typeof (headers as { get?: unknown }).get === 'function') {
    return (headers as { get(name: string): string | null }).get(name) ?? undefined;
  }
  const record = headers as Readonly<Record<string, string | readonly string[] | number | undefined>>;
  // The name as given first (objects written with the profile's names, as signResponse
  // returns them), then lower case (node's IncomingHttpHeaders), then a scan for other cases:
  // the scan was 0.1 µs per header of verifyResponse on signResponse's own headers.
  let value = Object.hasOwn(record, name) ? record[name] : undefined;
  const lower = value === undefined ? name.toLowerCase() : name;
  if (value === undefined && Object.hasOwn(record, lower)) value = record[lower];
  if (value === undefined) {
    for (const key of Object.keys(record)) {
      if (key.toLowerCase() === lower) {
        value = record[key];
        break;
      }
    }
  }
  if (value === undefined) return undefined;
  if (typeof value === 'number') return String(value);
  if (typeof value === 'string') return value;
  const distinct = [...new Set(value)];
  if (distinct.length > 1)
    throw new TypeError(`header ${name} is repeated with different values (${distinct.join(' | ')}); send it once`);
  return distinct[0];
}
