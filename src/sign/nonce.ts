/**
 * Nonces: making them (32 hex characters from the CSPRNG) and remembering them, so that a
 * request, response or callback replayed inside its time window is refused.
 */
import { randomFillSync } from 'node:crypto';
import * as v8 from 'node:v8';

/** Random bytes per nonce. */
const NONCE_BYTES = 16;

/**
 * CSPRNG bytes for 256 nonces, drawn in one call and handed out 16 at a time, each byte once.
 * `randomBytes(16)` cost 2.0 µs per nonce on Node 24 and 1.9 on 22 (the call, not the bytes;
 * up to 1% of a `signRequest` under load), a nonce from the batch 0.1 µs. Node's `randomUUID`
 * caches its entropy alike.
 */
const batch = Buffer.allocUnsafeSlow(NONCE_BYTES * 256);
let batchOffset = batch.length;
// A process started from a startup snapshot taken after a nonce was made would hand out the
// snapshot's bytes again, the same in every such process (a pid cannot tell: in a container both
// may be 1). The batch is emptied as the snapshot is written. `startupSnapshot` is missing
// before Node 18.6 (the function service's Node 14), where there are no such snapshots.
if (v8.startupSnapshot?.isBuildingSnapshot()) {
  v8.startupSnapshot.addSerializeCallback(() => {
    batchOffset = batch.length;
  });
}

/**
 * A new nonce: 32 lower-case hex characters from 16 random bytes of the CSPRNG.
 * @example const nonce = generateNonce() // '9f86d081884c7d659a2feaa0c55ad015'
 */
export function generateNonce(): string {
  if (batchOffset === batch.length) {
    randomFillSync(batch);
    batchOffset = 0;
  }
  const nonce = batch.toString('hex', batchOffset, batchOffset + NONCE_BYTES);
  batchOffset += NONCE_BYTES;
  return nonce;
}

/**
 * Where verifiers remember nonces. `seen` records `key` for `ttlSeconds` and answers whether
 * it was already there (and not yet expired); it must check and record in one step, so two
 * copies of a request racing each other cannot both pass. A Redis store is
 * `SET key 1 NX EX ttl` → seen when the reply is null.
 * @example
 * const redisStore: NonceStore = { async seen(key, ttl) { return (await redis.set(key, '1', { NX: true, EX: ttl })) === null } }
 */
export interface NonceStore {
  /**
   * @param key the nonce, prefixed by what it belongs to (for requests, the appid).
   * @param ttlSeconds how long the nonce must be remembered (the rest of its time window).
   * @param nowSeconds the verifier's clock, in seconds; stores with their own clock may ignore it.
   */
  seen(key: string, ttlSeconds: number, nowSeconds: number): boolean | Promise<boolean>;
  /**
   * Releases a claim, so the key may be claimed again: a notification id whose handling failed
   * must be handled when the platform retries it. Optional; nonces are never released.
   */
  forget?(key: string): void | Promise<void>;
}

/** Options of `MemoryNonceStore`. */
export interface MemoryNonceStoreOptions {
  /** Most nonces kept; past it the oldest are forgotten first. @default 100000 */
  max?: number;
}

/**
 * An in-process `NonceStore`: a Map in insertion order, bounded by `max`. Every nonce has the
 * same lifetime, so the oldest entry is always the next to expire and forgetting it first is
 * both LRU and expiry order. Memory is about 150 bytes per nonce (15 MB at the default max).
 * A server with several processes needs a shared store instead (see docs/signing.md).
 * @example const store = new MemoryNonceStore({ max: 10_000 })
 */
export class MemoryNonceStore implements NonceStore {
  readonly max: number;
  #expiries = new Map<string, number>();

  constructor(options: MemoryNonceStoreOptions = {}) {
    const max = options.max ?? 100_000;
    if (!Number.isInteger(max) || max < 1)
      throw new TypeError(`option max must be a positive integer, got ${String(max)}`);
    this.max = max;
  }

  /** How many nonces are remembered now. */
  get size(): number {
    return this.#expiries.size;
  }

  seen(key: string, ttlSeconds: number, nowSeconds: number = Date.now() / 1000): boolean {
    const expiries = this.#expiries;
    const expiry = expiries.get(key);
    if (expiry !== undefined && expiry > nowSeconds) return true;
    if (expiry !== undefined) expiries.delete(key);
    // Drop expired entries from the front: they are the oldest, so the scan stops at the first live one.
    for (const [oldKey, oldExpiry] of expiries) {
      if (oldExpiry > nowSeconds && expiries.size < this.max) break;
      expiries.delete(oldKey);
    }
    expiries.set(key, nowSeconds + ttlSeconds);
    return false;
  }

  forget(key: string): void {
    this.#expiries.delete(key);
  }

  /** Forgets every nonce. */
  clear(): void {
    this.#expiries.clear();
  }
}

/**
 * The store used when a verifier is given none: one per process.
 * @example defaultNonceStore.clear() // between tests that replay fixed nonces
 */
export const defaultNonceStore = new MemoryNonceStore();
