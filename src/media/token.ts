/**
 * The `access-token` every call carries (platform contract, Media API): a fixed token, a
 * provider, or client credentials exchanged at `/oauth/client_token/`. Tokens are cached until
 * shortly before they expire, and concurrent callers share one refresh.
 */
import type { RedisTokenStore } from '../fleet/token-store.js';
import type { MediaClock } from './clock.js';
import { createMediaError, MediaError } from './errors.js';

/** A token and how long it lives. */
export interface ClientToken {
  accessToken: string;
  /** Lifetime in seconds; without it the token is kept until the platform refuses it. */
  expiresIn?: number;
}

/** What a `tokenProvider` is told. */
export interface TokenProviderContext {
  /** True when the platform refused the previous token: return a new one. */
  forceRefresh: boolean;
}

/**
 * Supplies the client token. A plain string is asked for again on every call (cache it
 * yourself); a `ClientToken` with `expiresIn` is cached by the client.
 * @example tokenProvider: async ({ forceRefresh }) => myTokenStore.get({ forceRefresh })
 */
export type TokenProvider = (context: TokenProviderContext) => string | ClientToken | Promise<string | ClientToken>;

/** A signed JSON POST through the client's transport (signing, verification, timeout). */
export type JsonPost = (
  url: string,
  body: unknown,
) => Promise<{ status: number; body: unknown; logId: string | undefined }>;

/** What the client-token exchange receives. */
export interface ClientTokenRequest {
  clientKey: string;
  clientSecret: string;
  /** The configured token URL. @default `${baseUrl}/oauth/client_token/` */
  tokenUrl: string;
  /** POSTs JSON through the client's transport. */
  post: JsonPost;
}

/**
 * Exchanges client credentials for a token. The platform contract does not show this interface
 * (see docs/platform-contract.md#what-the-platform-leaves-open); the default assumes
 * `POST { client_key, client_secret, grant_type: "client_credential" }` answered by
 * `{ data: { access_token, expires_in } }`. Pass your own to replace it.
 * @example fetchClientToken: async ({ clientKey, clientSecret, post }) => {
 *   const { body } = await post('https://auth.example.com/token', { key: clientKey, secret: clientSecret });
 *   return { accessToken: (body as { token: string }).token, expiresIn: 3600 };
 * }
 */
export type ClientTokenFetcher = (request: ClientTokenRequest) => Promise<ClientToken>;

/** The token source after `resolveMediaOptions` chose one. */
export type TokenSource =
  | { kind: 'static'; token: string }
  | { kind: 'provider'; provider: TokenProvider }
  | {
      kind: 'credentials';
      clientKey: string;
      clientSecret: string;
      tokenUrl: string;
      fetcher: ClientTokenFetcher | undefined;
    };

/** The assumed client-token exchange (see `ClientTokenFetcher`). */
export const defaultClientTokenFetcher: ClientTokenFetcher = async ({ clientKey, clientSecret, tokenUrl, post }) => {
  const { status, body, logId } = await post(tokenUrl, {
    client_key: clientKey,
    client_secret: clientSecret,
    grant_type: 'client_credential',
  });
  const where = `POST ${tokenUrl} answered ${status}${logId === undefined ? '' : ` (log_id ${logId})`}`;
  const record = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  const data = (typeof record.data === 'object' && record.data !== null ? record.data : record) as Record<
    string,
    unknown
  >;
  const errNo = record.err_no ?? data.error_code;
  if (status < 200 || status > 299 || (errNo !== undefined && Number(errNo) !== 0)) {
    const msg = record.err_msg ?? data.description ?? '';
    throw createMediaError(
      'MEDIA_TOKEN',
      {},
      `${where} with err_no ${String(errNo ?? '-')} ${String(msg)}; check clientKey and clientSecret (CLOUDFN_MEDIA_CLIENT_KEY, CLOUDFN_MEDIA_CLIENT_SECRET)`,
    );
  }
  if (typeof data.access_token !== 'string' || data.access_token === '') {
    throw createMediaError(
      'MEDIA_TOKEN',
      {},
      `${where} without data.access_token; pass fetchClientToken if your token interface differs`,
    );
  }
  const expiresIn = Number(data.expires_in);
  return Number.isFinite(expiresIn) && expiresIn > 0
    ? { accessToken: data.access_token, expiresIn }
    : { accessToken: data.access_token };
};

/**
 * Holds the current token. `get` returns a cached one or fetches; `refresh` replaces the token
 * the platform refused, once for all callers that saw the same refusal. With a `shared` store
 * (Redis) client credentials are fetched once for the whole fleet: read the shared token; when
 * it is missing or due, one instance takes the lock, fetches and publishes while the others
 * poll for it (up to the lock time, then fetch themselves with a warning); a refusal retires
 * the shared token (compare-and-delete) and takes the same path, so one instance refreshes.
 */
export class TokenManager {
  private readonly source: TokenSource;
  private readonly clock: MediaClock;
  private readonly marginMs: number;
  private readonly post: JsonPost;
  private readonly store: Promise<RedisTokenStore> | undefined;
  private readonly scope: string;
  private cached: { token: string; refreshAt: number; expiresAt: number } | undefined;
  private inflight: Promise<string> | undefined;

  constructor(
    source: TokenSource,
    clock: MediaClock,
    marginMs: number,
    post: JsonPost,
    options: { shared?: Promise<RedisTokenStore> | undefined } = {},
  ) {
    this.source = source;
    this.clock = clock;
    this.marginMs = marginMs;
    this.post = post;
    // Only client credentials are shared: a fixed token needs nothing, a provider caches itself.
    this.store = source.kind === 'credentials' ? options.shared : undefined;
    this.scope = source.kind === 'credentials' ? `${source.clientKey}@${source.tokenUrl}` : '';
  }

  /** False for a fixed token: a refusal cannot be cured by asking again. */
  get refreshable(): boolean {
    return this.source.kind !== 'static';
  }

  /** The token to send now. */
  async get(signal?: AbortSignal): Promise<string> {
    if (this.source.kind === 'static') return this.source.token;
    if (this.cached !== undefined && this.clock.now() < this.cached.refreshAt) return this.cached.token;
    return this.shared(undefined, signal);
  }

  /**
   * Replaces `refused` (the token the platform just refused). When another caller already
   * replaced it, the new token is returned without asking again.
   */
  async refresh(refused: string, signal?: AbortSignal): Promise<string> {
    if (this.source.kind === 'static') return this.source.token;
    if (this.inflight !== undefined) return this.wait(this.inflight, signal);
    if (this.cached !== undefined && this.cached.token !== refused && this.clock.now() < this.cached.refreshAt)
      return this.cached.token;
    this.cached = undefined;
    return this.shared(refused, signal);
  }

  private shared(refused: string | undefined, signal?: AbortSignal): Promise<string> {
    // One exchange for every concurrent caller; a caller's own abort must not cancel it for the rest.
    this.inflight ??= (
      this.store === undefined
        ? this.fetch(refused !== undefined)
        : this.store.then((store) => this.fleet(store, refused))
    ).finally(() => {
      this.inflight = undefined;
    });
    return this.wait(this.inflight, signal);
  }

  /** The fleet's token: the shared one, or this instance's fetch under the lock, or a local fetch when Redis fails. */
  private async fleet(store: RedisTokenStore, refused: string | undefined): Promise<string> {
    const scope = this.scope;
    try {
      if (refused !== undefined) await store.retire(scope, refused);
      const deadline = this.clock.now() + store.lockMs;
      for (;;) {
        const usable = await this.adopt(store, refused);
        if (usable !== undefined) return usable;
        if (await store.lock(scope)) {
          // Another instance may have published and released between the read and the lock.
          const late = await this.adopt(store, refused);
          if (late === undefined) break;
          await store.unlock(scope);
          return late;
        }
        if (this.clock.now() >= deadline)
          throw new Error(`no new token appeared within the lock time (${store.lockMs} ms)`);
        await this.clock.sleep(store.pollMs);
      }
    } catch (error) {
      store.warnFallback(scope, error);
      return this.fetch(refused !== undefined);
    }
    // This instance holds the lock: fetch, publish (which releases it).
    let token: string;
    try {
      token = await this.fetch(refused !== undefined);
    } catch (error) {
      await store.unlock(scope).catch(() => undefined);
      throw error;
    }
    const cached = this.cached;
    try {
      if (cached === undefined) await store.unlock(scope);
      else
        await store.write(
          scope,
          { token, refreshAt: Math.min(cached.refreshAt, Number.MAX_SAFE_INTEGER) },
          cached.expiresAt,
        );
    } catch (error) {
      store.warnFallback(scope, error);
    }
    return token;
  }

  /** Takes the shared token into the local cache when it is usable (not due, not the refused one). */
  private async adopt(store: RedisTokenStore, refused: string | undefined): Promise<string | undefined> {
    const shared = await store.read(this.scope);
    if (shared === undefined || shared.token === refused || this.clock.now() >= shared.refreshAt) return undefined;
    this.cached = { token: shared.token, refreshAt: shared.refreshAt, expiresAt: Number.POSITIVE_INFINITY };
    return shared.token;
  }

  private async fetch(forceRefresh: boolean): Promise<string> {
    const source = this.source;
    let result: string | ClientToken;
    try {
      if (source.kind === 'provider') result = await source.provider({ forceRefresh });
      else if (source.kind === 'credentials') {
        const fetcher = source.fetcher ?? defaultClientTokenFetcher;
        result = await fetcher({
          clientKey: source.clientKey,
          clientSecret: source.clientSecret,
          tokenUrl: source.tokenUrl,
          post: this.post,
        });
      } else return source.token;
    } catch (error) {
      if (error instanceof MediaError && error.code === 'MEDIA_TOKEN') throw error;
      throw createMediaError(
        'MEDIA_TOKEN',
        { cause: error },
        `${source.kind === 'credentials' ? `POST ${source.tokenUrl}` : 'tokenProvider'} failed: ${(error as Error).message ?? String(error)}`,
      );
    }
    const token = typeof result === 'string' ? { accessToken: result } : result;
    if (typeof token?.accessToken !== 'string' || token.accessToken === '') {
      throw createMediaError(
        'MEDIA_TOKEN',
        {},
        `the ${source.kind === 'provider' ? 'tokenProvider' : 'fetchClientToken'} returned no accessToken; return a string or { accessToken, expiresIn }`,
      );
    }
    const provided = source.kind === 'provider';
    const now = this.clock.now();
    if (token.expiresIn !== undefined && token.expiresIn > 0) {
      const lifetimeMs = token.expiresIn * 1000;
      this.cached = {
        token: token.accessToken,
        refreshAt: now + lifetimeMs - Math.min(this.marginMs, lifetimeMs / 2),
        expiresAt: now + lifetimeMs,
      };
    } else if (!provided) {
      // No lifetime given: keep it until the platform refuses it.
      this.cached = {
        token: token.accessToken,
        refreshAt: Number.POSITIVE_INFINITY,
        expiresAt: Number.POSITIVE_INFINITY,
      };
    } else {
      this.cached = undefined;
    }
    return token.accessToken;
  }

  private wait(promise: Promise<string>, signal?: AbortSignal): Promise<string> {
    if (signal === undefined) return promise;
    if (signal.aborted) return Promise.reject(signal.reason);
    return new Promise((resolve, reject) => {
      const onAbort = (): void => reject(signal.reason);
      signal.addEventListener('abort', onAbort, { once: true });
      promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
    });
  }
}
