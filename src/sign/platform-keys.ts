/**
 * Platform public keys per mini-program (docs/platform-contract.md: the platform key "differs
 * per mini-program", and a provider acts for many). A key source maps an appid to its key, or to
 * several while a key is being replaced; `createPlatformKeyStore` loads them from a folder of
 * `<appid>.pem` files or from a function (a database), with caching.
 */
import type { KeyObject } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { signError } from './errors.js';
import { loadPublicKey, type KeyInput } from './keys.js';

/** What a lookup gives: one key, several (old and new during a rotation), or nothing. */
export type PlatformKeyResult = KeyInput | readonly KeyInput[] | undefined | null;

/** Finds the platform public key(s) of one mini-program; it may be async. */
export type PlatformKeyResolver = (appid: string) => PlatformKeyResult | Promise<PlatformKeyResult>;

/** Where verifiers find platform keys by appid: a resolver function or a key store. */
export type PlatformKeySource = PlatformKeyResolver | PlatformKeyStore;

/** Platform public keys by appid, loaded once and cached. */
export interface PlatformKeyStore {
  /** The parsed keys of `appid`, in the order given; throws SIGN_UNKNOWN_APPID when there are none. */
  keys(appid: string): Promise<KeyObject[]>;
  /** Forgets the cached keys of `appid`, or of every appid: call it after replacing a key. */
  clear(appid?: string): void;
}

/** Options of `createPlatformKeyStore`: give `dir` or `load`. */
export interface PlatformKeyStoreOptions {
  /**
   * A folder of `<appid>.pem` files, each holding the platform public key of that mini-program
   * as copied from the console; during a rotation the file holds both keys, one after the other.
   */
  dir?: string;
  /** Loads an appid's key(s) from elsewhere (a database, a secret manager). */
  load?: PlatformKeyResolver;
  /** How long loaded keys are kept, in milliseconds; 0 keeps them until `clear`. @default 300000 (5 minutes) */
  ttlMs?: number;
}

/** An appid as it may name a file: letters, digits, `_` and `-`. */
const APPID = /^[A-Za-z0-9_-]{1,64}$/;
const PEM_BLOCK = /-----BEGIN ([A-Z0-9 ]+)-----[\s\S]*?-----END \1-----/g;

/**
 * A key store reading `<dir>/<appid>.pem` (or calling `load`), parsing each key once and keeping
 * it for `ttlMs`, so that a key replaced on disk or in the database is picked up without a
 * restart. Concurrent lookups of one appid share one load.
 * @example
 * const platformKeys = createPlatformKeyStore({ dir: 'keys/platform' }) // keys/platform/wx123.pem, ...
 * const storeFromDb = createPlatformKeyStore({ load: async (appid) => (await db.platformKeys(appid)).map((row) => row.pem) })
 * app.post('/notify', callbackMiddleware({ platformKeys }), handler)
 */
export function createPlatformKeyStore(options: PlatformKeyStoreOptions): PlatformKeyStore {
  const { dir, load, ttlMs = 300_000 } = options;
  if ((dir === undefined) === (load === undefined)) {
    throw new TypeError(
      'createPlatformKeyStore needs one of dir (a folder of <appid>.pem files) or load (appid) => key(s)',
    );
  }
  if (dir !== undefined && (typeof dir !== 'string' || dir === ''))
    throw new TypeError(`option dir must be a folder path, got ${JSON.stringify(dir)}`);
  if (load !== undefined && typeof load !== 'function')
    throw new TypeError(`option load must be a function (appid) => key(s), got ${typeof load}`);
  if (!Number.isFinite(ttlMs) || ttlMs < 0)
    throw new TypeError(`option ttlMs must be milliseconds, 0 or more, got ${String(ttlMs)}`);
  const cache = new Map<string, { keys: Promise<KeyObject[]>; until: number }>();
  const fetchKeys = async (appid: string): Promise<KeyObject[]> => {
    if (dir !== undefined) return parseKeys(appid, await readKeyFile(dir, appid));
    return parseKeys(appid, await load!(appid));
  };
  return {
    keys(appid) {
      if (typeof appid !== 'string' || appid === '')
        return Promise.reject(signError('SIGN_NO_APPID', 'the appid is empty'));
      const now = Date.now();
      const hit = cache.get(appid);
      if (hit !== undefined && (ttlMs === 0 || hit.until > now)) return hit.keys;
      const keys = fetchKeys(appid);
      cache.set(appid, { keys, until: now + ttlMs });
      // A failed load is not cached: the key may be added a moment later.
      keys.catch(() => {
        if (cache.get(appid)?.keys === keys) cache.delete(appid);
      });
      return keys;
    },
    clear(appid) {
      if (appid === undefined) cache.clear();
      else cache.delete(appid);
    },
  };
}

async function readKeyFile(dir: string, appid: string): Promise<string | undefined> {
  if (!APPID.test(appid))
    throw signError(
      'SIGN_UNKNOWN_APPID',
      appid,
      `an appid is letters, digits, _ and -; ${JSON.stringify(appid)} cannot name a file in ${dir}`,
    );
  try {
    return await readFile(join(dir, `${appid}.pem`), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/** One key or several, each parsed and checked; a text may hold several PEM blocks. */
function parseKeys(appid: string, found: PlatformKeyResult): KeyObject[] {
  if (found === undefined || found === null) throw signError('SIGN_UNKNOWN_APPID', appid, 'no key was found for it');
  const list = Array.isArray(found) ? (found as readonly KeyInput[]) : [found as KeyInput];
  const keys: KeyObject[] = [];
  for (const input of list) {
    const blocks = typeof input === 'string' ? input.match(PEM_BLOCK) : null;
    for (const one of blocks !== null && blocks.length > 1 ? blocks : [input]) keys.push(loadPublicKey(one));
  }
  if (keys.length === 0) throw signError('SIGN_UNKNOWN_APPID', appid, 'its key list is empty');
  return keys;
}

/**
 * The keys of `appid` from a source: a store's cached keys, or a resolver's answer parsed.
 * @example const keys = await platformKeysOf(store, 'wx123')
 */
export async function platformKeysOf(source: PlatformKeySource, appid: string): Promise<KeyObject[]> {
  if (typeof source === 'function') return parseKeys(appid, await source(appid));
  if (source !== null && typeof source === 'object' && typeof source.keys === 'function') return source.keys(appid);
  throw new TypeError(
    `platformKeys must be a function (appid) => key(s) or a key store (createPlatformKeyStore), got ${typeof source}`,
  );
}

/** One key or several, parsed: what `publicKey` options accept. */
export function publicKeyList(input: KeyInput | readonly KeyInput[]): KeyObject[] {
  if (Array.isArray(input)) {
    if (input.length === 0)
      throw new TypeError(
        'publicKey is an empty list; give the platform public key, or the old and new keys during a rotation',
      );
    return (input as readonly KeyInput[]).map((key) => loadPublicKey(key));
  }
  return [loadPublicKey(input as KeyInput)];
}

/**
 * The appid a JSON body names at its top level (`app_id` or `appid`), or undefined. Used to
 * pick a callback's key and to check it against the appid the caller expects.
 */
export function bodyAppid(body: string): string | undefined {
  // Cheap test first: most bodies that name no appid are never parsed here.
  if (!body.includes('app_id') && !body.includes('appid')) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    return undefined;
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const record = value as Record<string, unknown>;
  const appid = Object.hasOwn(record, 'app_id')
    ? record.app_id
    : Object.hasOwn(record, 'appid')
      ? record.appid
      : undefined;
  return typeof appid === 'string' && appid !== '' ? appid : undefined;
}
