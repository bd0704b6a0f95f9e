/**
 * `dySDK.context(context).openApiInvoke({ url, method, headers, data })` locally: the call goes
 * with an `access-token` from the media client's token cache (client credentials exchanged at
 * the emulator's /oauth/client_token/, cached until shortly before they expire). The emulator
 * answers the interfaces it implements (`/api/cloud_voc/…`, signed when `cloudfn dev --platform`
 * registered an app key); CLOUDFN_SDK_OPENAPI_URL answers every other path; else an error
 * names that setting.
 */
import type { Server } from 'node:http';
import { TokenManager, type JsonPost } from '../../media/token.js';
import { systemClock } from '../../media/clock.js';
import { signRequest } from '../../sign/index.js';
import { platformError } from '../errors.js';
import { lookupHost } from '../../../runtime/intranet/host-table.js';
import { PUSH_HOSTS } from '../../../runtime/intranet/hosts.js';
import { inject } from '../../../runtime/serve/inject.js';
import { SDK_OPENAPI_URL_VAR, type SdkOptions } from './sdk-options.js';
import { CALLER_ROOM_HEADERS, INFO_PATH } from './live-calls.js';

/** What `openApiInvoke` takes, as the platform's SDK does. */
export interface OpenApiRequest {
  url: string;
  /** @default 'GET', or 'POST' when `data` is given */
  method?: string;
  headers?: Record<string, string>;
  /** Query parameters added to the URL's own (the platform's templates pass `querys`). */
  querys?: Record<string, unknown>;
  /** Sent as the JSON body (or as given when it is a string). */
  data?: unknown;
}

/**
 * The URL with `querys` appended (`undefined` and `null` values left out), as the platform's SDK
 * takes them beside the URL.
 * @example withQuerys('/api/x?a=1', { b: 2 }) // '/api/x?a=1&b=2'
 */
export function withQuerys(url: string, querys: Record<string, unknown> | undefined): string {
  if (querys === undefined || querys === null) return url;
  const pairs = Object.entries(querys)
    .filter(([, value]) => value !== undefined && value !== null)
    .map(([key, value]) => `${encodeURIComponent(key)}=${encodeURIComponent(String(value))}`);
  if (pairs.length === 0) return url;
  return `${url}${url.includes('?') ? '&' : '?'}${pairs.join('&')}`;
}

/** The paths the emulator implements. */
const EMULATED_PREFIX = '/api/cloud_voc/';
/** Refresh a token this long before it expires. */
const TOKEN_MARGIN_MS = 60_000;

async function postJson(
  url: string,
  body: unknown,
): Promise<{ status: number; body: unknown; logId: string | undefined }> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // Not JSON: the token fetcher reports what it got.
  }
  return { status: response.status, body: parsed, logId: response.headers.get('x-tt-logid') ?? undefined };
}

/**
 * Whether a URL is one the live-room simulator answers: the live-data task calls
 * (`https://webcast.bytedance.com/api/live_data/task/start`, stop, get) and the token trade
 * (`/api/webcastmate/info`), on the public host or Douyin Cloud's internal one.
 */
function isLiveUrl(url: URL): boolean {
  const host = url.hostname;
  if (host !== 'webcast.bytedance.com' && host !== 'webcast-bytedance-com.openapi.dyc.ivolces.com') return false;
  return url.pathname.startsWith('/api/live_data/') || url.pathname.replace(/\/+$/, '') === INFO_PATH;
}

/** Where one call goes: the target base URL and whether it is the emulator, or the local server of its host. */
type Target = { base: string; emulator: boolean; path: string } | { local: Server; host: string; path: string };

/** Whether `url` names one of the platform's push hosts, over http or https. */
function isPushUrl(url: URL): boolean {
  return (url.protocol === 'http:' || url.protocol === 'https:') && PUSH_HOSTS.includes(url.hostname);
}

function parseUrl(url: string): URL {
  try {
    return new URL(url, 'http://openapi.local');
  } catch {
    throw platformError('PLATFORM_SDK_BAD_ARGUMENT', 'openApiInvoke url', `must be a URL, got ${JSON.stringify(url)}`);
  }
}

function targetOf(options: SdkOptions, url: string): Target {
  const parsed = parseUrl(url);
  const path = parsed.pathname + parsed.search;
  // The push API and the live rooms: the server of this process that stands in for the host
  // (the process's host table), answered in process; else CLOUDFN_SDK_OPENAPI_URL.
  const hosted = isPushUrl(parsed) ? 'push' : isLiveUrl(parsed) ? 'live' : undefined;
  if (hosted !== undefined) {
    const local = lookupHost(parsed.hostname);
    if (local !== undefined) return { local: local.server, host: parsed.host, path };
    if (options.openApiUrl === undefined)
      throw platformError(
        'PLATFORM_SDK_NO_OPENAPI_TARGET',
        url,
        hosted === 'push'
          ? 'it is a WebSocket push and no gateway runs in this process'
          : 'it is a live-room call and no live-room simulator runs in this process',
        hosted === 'push'
          ? 'start one: cloudfn dev serves one, and in a test openGateway() of cloudfn/testing does'
          : 'start one: cloudfn dev serves one, and in a test startLiveRooms() of cloudfn/testing does',
      );
  }
  if (parsed.pathname.startsWith(EMULATED_PREFIX) && options.emulatorUrl !== undefined)
    return { base: options.emulatorUrl, emulator: true, path };
  if (options.openApiUrl !== undefined) return { base: options.openApiUrl, emulator: false, path };
  const detail = parsed.pathname.startsWith(EMULATED_PREFIX)
    ? 'the emulator implements this interface but is not running (CLOUDFN_MEDIA_BASE_URL is unset)'
    : `the emulator does not implement ${parsed.pathname} and ${SDK_OPENAPI_URL_VAR} is unset`;
  throw platformError('PLATFORM_SDK_NO_OPENAPI_TARGET', url, detail);
}

/**
 * A call answered by the server of this process that stands in for its host, through `inject`
 * with its `Host` kept: the gateway's push API, the live rooms.
 */
async function answeredInProcess(
  target: { local: Server; host: string; path: string },
  method: string,
  headers: Record<string, string>,
  body: string | undefined,
): Promise<unknown> {
  const answer = await inject(target.local, {
    method,
    path: target.path,
    headers: { ...headers, host: target.host },
    ...(body === undefined ? {} : { body }),
  });
  const text = answer.body.toString('utf8');
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/** The live room of the request a call is made from (what `getContext()` reads). */
export interface CallerRoom {
  appId?: string | undefined;
  roomId?: string | undefined;
  anchorOpenId?: string | undefined;
}

/** Sends OpenAPI calls for one process, with one token cache per emulator and client. */
export class OpenApiInvoker {
  private readonly tokens = new Map<string, TokenManager>();

  /** The access-token for `options`' client at `base`, or undefined without client credentials. */
  private async token(options: SdkOptions, base: string): Promise<string | undefined> {
    if (options.clientKey === undefined || options.clientSecret === undefined) return undefined;
    const tokenUrl = options.tokenUrl ?? `${options.emulatorUrl ?? base}/oauth/client_token/`;
    const key = `${options.clientKey}@${tokenUrl}`;
    let manager = this.tokens.get(key);
    if (manager === undefined) {
      const post: JsonPost = postJson;
      manager = new TokenManager(
        {
          kind: 'credentials',
          clientKey: options.clientKey,
          clientSecret: options.clientSecret,
          tokenUrl,
          fetcher: undefined,
        },
        systemClock,
        TOKEN_MARGIN_MS,
        post,
      );
      this.tokens.set(key, manager);
    }
    return manager.get();
  }

  /**
   * Makes one call; answers the parsed JSON body (or the text when it is not JSON).
   * @example await invoker.invoke(readSdkOptions(), { url: '/api/apps/v2/qrcode/create/', method: 'POST', data })
   */
  async invoke(options: SdkOptions, request: OpenApiRequest, caller?: CallerRoom): Promise<unknown> {
    if (typeof request !== 'object' || request === null || typeof request.url !== 'string') {
      throw platformError(
        'PLATFORM_SDK_BAD_ARGUMENT',
        'openApiInvoke',
        `takes { url, method, headers, data }, got ${JSON.stringify(request)}`,
      );
    }
    const url = withQuerys(request.url, request.querys);
    const method = (request.method ?? (request.data === undefined ? 'GET' : 'POST')).toUpperCase();
    const headers: Record<string, string> = { ...(request.headers ?? {}) };
    let body: string | undefined;
    if (request.data !== undefined && method !== 'GET' && method !== 'HEAD') {
      body = typeof request.data === 'string' ? request.data : JSON.stringify(request.data);
      if (!Object.keys(headers).some((name) => name.toLowerCase() === 'content-type'))
        headers['content-type'] = 'application/json';
    }
    const target = targetOf(options, url);
    // The simulator learns a room's anchor from the call that starts its tasks (start_game's own
    // X-Room-ID and X-Anchor-OpenID); the platform knows them without being told.
    if ('local' in target) {
      if (caller?.roomId !== undefined) headers[CALLER_ROOM_HEADERS.roomid] = caller.roomId;
      if (caller?.anchorOpenId !== undefined) headers[CALLER_ROOM_HEADERS.anchorOpenid] = caller.anchorOpenId;
      // The trade's rate is per app: the app is its access-token on the platform, the caller's appid here.
      if (caller?.appId !== undefined) headers[CALLER_ROOM_HEADERS.appid] = caller.appId;
    }
    if ('local' in target) return answeredInProcess(target, method, headers, body);
    const token = await this.token(options, target.base);
    if (token !== undefined) headers['access-token'] = token;
    if (target.emulator && options.signing !== undefined) {
      const signed = signRequest({
        privateKey: options.signing.privateKeyPath,
        keyVersion: options.signing.keyVersion,
        appid: options.signing.appid,
        method,
        url: target.path,
        body: body ?? '',
      });
      headers['platform-authorization'] = signed.authorization;
    }
    const response = await fetch(target.base + target.path, { method, headers, body });
    const text = await response.text();
    try {
      return JSON.parse(text) as unknown;
    } catch {
      return text;
    }
  }
}
