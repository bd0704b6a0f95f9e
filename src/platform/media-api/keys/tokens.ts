/**
 * `TokenIssuer`: issues access tokens at `/oauth/client_token/` for accepted client
 * credentials and checks them on every call; tokens live in the state. As on the open
 * platform, a new token retires the previous one `retireSeconds` later and any older one at
 * once (only the latest two are valid), and a client_key fetching more than `fetchLimit`
 * tokens per `fetchWindowSeconds` is refused with err_no 10020: instances that each fetch
 * their own token knock each other's out, which is why a fleet shares one.
 */
import { randomBytes } from 'node:crypto';
import { platformError } from '../../errors.js';
import type { StateStore } from '../state/state-store.js';
import type { TokenRecord } from '../state/state.js';

/** How the token endpoint decides which client_key/client_secret pairs it accepts. */
export interface TokenOptions {
  /**
   * Accepted pairs, client_key → client_secret. Empty means dev mode: any non-empty pair is
   * accepted, so a new project needs no set-up.
   * @default {}
   */
  clients: Record<string, string>;
  /** Lifetime of an access token, in seconds. @default 7200 */
  ttlSeconds: number;
  /** Seconds the previous token stays valid after a new one is issued. @default 300 */
  retireSeconds?: number;
  /** Most fetches per client_key per `fetchWindowSeconds`. @default 500 */
  fetchLimit?: number;
  /** @default 300 */
  fetchWindowSeconds?: number;
}

/** The body `POST /oauth/client_token/` answers inside `data`. */
export interface IssuedToken {
  access_token: string;
  expires_in: number;
}

/**
 * Issues and checks access tokens; tokens live in the state so they survive a restart.
 * @example
 * const tokens = new TokenIssuer(store, { clients: {}, ttlSeconds: 7200 });
 * const { access_token } = tokens.issue({ client_key: 'tt1', client_secret: 's', grant_type: 'client_credential' });
 * tokens.check(access_token).clientKey // 'tt1'
 */
export class TokenIssuer {
  readonly #store: StateStore;
  readonly #options: TokenOptions;
  readonly #now: () => number;
  /** Issue times per client_key within the fetch window (not kept across restarts). */
  readonly #fetches = new Map<string, number[]>();

  constructor(store: StateStore, options: TokenOptions, now: () => number = Date.now) {
    this.#store = store;
    this.#options = options;
    this.#now = now;
  }

  /** Checks the token request body and issues a token, or throws a `PlatformError`. */
  issue(body: unknown): IssuedToken {
    const request = (body ?? {}) as Record<string, unknown>;
    const clientKey = request['client_key'];
    const clientSecret = request['client_secret'];
    const grantType = request['grant_type'];
    if (typeof clientKey !== 'string' || clientKey === '')
      throw platformError('PLATFORM_PARAM_ERROR', 'client_key must be a non-empty string');
    if (typeof clientSecret !== 'string' || clientSecret === '')
      throw platformError('PLATFORM_PARAM_ERROR', 'client_secret must be a non-empty string');
    if (grantType !== 'client_credential') {
      throw platformError(
        'PLATFORM_PARAM_ERROR',
        `grant_type must be "client_credential", got ${JSON.stringify(grantType)}`,
      );
    }
    const clients = this.#options.clients;
    if (Object.keys(clients).length > 0 && clients[clientKey] !== clientSecret)
      throw platformError('PLATFORM_BAD_CLIENT', clientKey);
    this.#prune();
    const now = this.#now();
    this.#countFetch(clientKey, now);
    this.#retireOlder(clientKey, now);
    const token = `clt.${randomBytes(24).toString('hex')}`;
    const record: TokenRecord = { token, clientKey, expiresAt: now + this.#options.ttlSeconds * 1000, issuedAt: now };
    this.#store.state.tokens[token] = record;
    this.#store.changed();
    return { access_token: token, expires_in: this.#options.ttlSeconds };
  }

  /** Returns the record of a valid token, or throws the missing, invalid or expired error. */
  check(token: string | undefined): TokenRecord {
    if (token === undefined || token === '') throw platformError('PLATFORM_TOKEN_MISSING');
    const record = this.#store.state.tokens[token];
    if (record === undefined)
      throw platformError('PLATFORM_TOKEN_INVALID', token.length > 24 ? token.slice(0, 24) + '...' : token);
    const now = this.#now();
    if (record.retiredAt !== undefined && record.retiredAt <= now) {
      throw platformError('PLATFORM_TOKEN_RETIRED', record.clientKey, new Date(record.retiredAt).toISOString());
    }
    if (record.expiresAt <= now)
      throw platformError('PLATFORM_TOKEN_EXPIRED', new Date(record.expiresAt).toISOString());
    return record;
  }

  /** Refuses the fetch over the limit (10020); a refused fetch is not counted. */
  #countFetch(clientKey: string, now: number): void {
    const limit = this.#options.fetchLimit ?? 500;
    const windowSeconds = this.#options.fetchWindowSeconds ?? 300;
    const since = now - windowSeconds * 1000;
    const times = (this.#fetches.get(clientKey) ?? []).filter((t) => t > since);
    if (times.length >= limit) {
      this.#fetches.set(clientKey, times);
      throw platformError('PLATFORM_TOKEN_FETCH_LIMIT', clientKey, limit, windowSeconds);
    }
    times.push(now);
    this.#fetches.set(clientKey, times);
  }

  /** The newest live token of `clientKey` is retired `retireSeconds` from now, every older one now. */
  #retireOlder(clientKey: string, now: number): void {
    const live = Object.values(this.#store.state.tokens)
      .filter((record) => record.clientKey === clientKey && (record.retiredAt === undefined || record.retiredAt > now))
      .sort((a, b) => (b.issuedAt ?? 0) - (a.issuedAt ?? 0));
    const retireMs = (this.#options.retireSeconds ?? 300) * 1000;
    live.forEach((record, index) => {
      record.retiredAt = index === 0 ? Math.min(record.retiredAt ?? Number.POSITIVE_INFINITY, now + retireMs) : now;
    });
  }

  /** Expired tokens are kept for a day so a client is told "expired" rather than "invalid". */
  #prune(): void {
    const cutoff = this.#now() - 86_400_000;
    for (const [token, record] of Object.entries(this.#store.state.tokens)) {
      if (record.expiresAt < cutoff) delete this.#store.state.tokens[token];
    }
  }
}
