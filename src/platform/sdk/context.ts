/**
 * `dySDK.context(context).getContext()`: the caller and live-room fields the platform's gateway
 * puts in request headers, read from the function's `service.headers`.
 */
import { platformError } from '../errors.js';

/** What `getContext()` answers; a field is undefined when its header is absent. */
export interface SdkRequestContext {
  appId?: string;
  openId?: string;
  unionId?: string;
  anonymousOpenId?: string;
  env?: string;
  envId?: string;
  source?: string;
  serviceId?: string;
  sessionId?: string;
  /** The first address of X-Forwarded-For. */
  clientIp?: string;
  roomId?: string;
  anchorOpenId?: string;
  avatarUrl?: string;
  nickName?: string;
}

/**
 * Field → gateway header (lower case, as `service.headers` has them). The identity headers are
 * the ones the platform documents for calls from a mini-program; the live-room ones are those the
 * gateway writes from a game client's token (its 弹幕玩法 page: X-Room-ID, X-Anchor-OpenID,
 * X-Avatar-Url, X-Nick-Name; docs/platform-projects.md#getcontext).
 */
export const CONTEXT_HEADERS: Readonly<Record<Exclude<keyof SdkRequestContext, 'clientIp'>, string>> = {
  appId: 'x-tt-appid',
  openId: 'x-tt-openid',
  unionId: 'x-tt-unionid',
  anonymousOpenId: 'x-tt-anonymous-openid',
  env: 'x-tt-env',
  envId: 'x-tt-envid',
  source: 'x-tt-source',
  serviceId: 'x-tt-serviceid',
  sessionId: 'x-tt-sessionid',
  roomId: 'x-room-id',
  anchorOpenId: 'x-anchor-openid',
  avatarUrl: 'x-avatar-url',
  nickName: 'x-nick-name',
};

/** What the stand-in needs of the function's second argument. */
export interface HeaderCarrier {
  headers: Readonly<Record<string, string | string[] | undefined>>;
}

function first(value: string | string[] | undefined): string | undefined {
  const one = Array.isArray(value) ? value[0] : value;
  return one === undefined || one === '' ? undefined : one;
}

/** Header values are Latin-1 on the wire: a nickname in Chinese comes percent-encoded. */
function decoded(value: string): string {
  if (!value.includes('%')) return value;
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

/**
 * Checks that `context` is the function's second argument (it has `headers`).
 * @example headerCarrier(service).headers['x-tt-openid']
 */
export function headerCarrier(context: unknown): HeaderCarrier {
  const headers = (context as { headers?: unknown } | null | undefined)?.headers;
  if (typeof headers !== 'object' || headers === null) {
    throw platformError(
      'PLATFORM_SDK_BAD_ARGUMENT',
      'dySDK.context(context)',
      `needs the function's second argument (service, which has headers), got ${context === null ? 'null' : typeof context}; call dySDK.context(service) inside the function`,
    );
  }
  return context as HeaderCarrier;
}

/**
 * The gateway fields of one request.
 * @example readRequestContext({ headers: { 'x-tt-openid': 'o1' } }).openId // 'o1'
 */
export function readRequestContext(carrier: HeaderCarrier): SdkRequestContext {
  const fields: SdkRequestContext = {};
  for (const [field, header] of Object.entries(CONTEXT_HEADERS)) {
    const value = first(carrier.headers[header]);
    if (value !== undefined) fields[field as keyof SdkRequestContext] = decoded(value);
  }
  const forwarded = first(carrier.headers['x-forwarded-for'])?.split(',')[0]?.trim();
  if (forwarded) fields.clientIp = forwarded;
  return fields;
}
