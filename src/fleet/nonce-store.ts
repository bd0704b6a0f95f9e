/**
 * The nonce store of a fleet: a nonce is claimed in Redis with one atomic `SET key 1 NX EX ttl`,
 * so a replayed request or callback is refused by every instance, not only by the one that saw
 * it first. When Redis does not answer in time the store fails closed: it throws
 * FLEET_UNAVAILABLE (503, which the platform retries) and never answers "not seen".
 */
import type { NonceStore } from '../sign/nonce.js';
import { redisClient, jsonWarn, type FleetWarn } from './connect.js';
import { createFleetError } from './errors.js';
import type { RedisSettings } from './settings.js';

/**
 * A `NonceStore` in Redis. A forged request never reaches it: verifiers check the signature
 * before they claim the nonce.
 * @example verifyCallback(req, { platformPublicKey, nonceStore: new RedisNonceStore(settings) })
 */
export class RedisNonceStore implements NonceStore {
  readonly #settings: RedisSettings;
  readonly #warn: FleetWarn;

  constructor(settings: RedisSettings, options: { warn?: FleetWarn } = {}) {
    this.#settings = settings;
    this.#warn = options.warn ?? jsonWarn;
  }

  async seen(key: string, ttlSeconds: number, _nowSeconds?: number): Promise<boolean> {
    const ttl = Math.max(1, Math.ceil(ttlSeconds));
    try {
      const redis = await redisClient(this.#settings, this.#warn);
      const reply = await redis.set(`${this.#settings.keyPrefix}nonce:${key}`, '1', 'EX', ttl, 'NX');
      return reply === null;
    } catch (error) {
      if ((error as { code?: string }).code === 'FLEET_NO_CLIENT') throw error;
      throw createFleetError('FLEET_UNAVAILABLE', 'the nonce store', (error as Error).message);
    }
  }

  async forget(key: string): Promise<void> {
    try {
      const redis = await redisClient(this.#settings, this.#warn);
      await redis.del(`${this.#settings.keyPrefix}nonce:${key}`);
    } catch (error) {
      // The claim then lasts its ttl: the platform's retry is answered as a duplicate.
      this.#warn(`could not release the claim ${key} in Redis: ${(error as Error).message}`);
    }
  }
}
