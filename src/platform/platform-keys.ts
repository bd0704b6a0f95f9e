/**
 * The emulator's own RSA key pair in the data folder: loaded, or generated on first start,
 * with `platform_public_key.pem` rewritten from the private key.
 */
import { generateKeyPairSync, createPrivateKey, createPublicKey, type KeyObject } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from './atomic-file.js';
import { platformError } from './errors.js';

/** The platform private key, readable only by its owner; never commit the data folder. */
export const PLATFORM_PRIVATE_KEY_FILE = 'platform_private_key.pem';
/** The published half, for providers to verify responses and callbacks. */
export const PLATFORM_PUBLIC_KEY_FILE = 'platform_public_key.pem';

/** The emulator's own key pair. */
export interface PlatformKeys {
  privateKey: KeyObject;
  publicKey: KeyObject;
  /** Absolute or data-relative path of `platform_public_key.pem`. */
  publicKeyPath: string;
  /** The public key as SPKI PEM, as a provider console would show it. */
  publicKeyPem: string;
}

/**
 * Loads the platform key pair from the data folder, generating an RSA 2048 pair on first
 * start. The public key file is rewritten from the private key every time, so it cannot drift.
 * @example const keys = await loadOrCreatePlatformKeys('.cloudfn/platform'); console.log(keys.publicKeyPath)
 */
export async function loadOrCreatePlatformKeys(dataDir: string): Promise<PlatformKeys> {
  const privatePath = join(dataDir, PLATFORM_PRIVATE_KEY_FILE);
  const publicKeyPath = join(dataDir, PLATFORM_PUBLIC_KEY_FILE);
  let privateKey: KeyObject;
  if (existsSync(privatePath)) {
    try {
      privateKey = createPrivateKey(readFileSync(privatePath, 'utf8'));
    } catch (error) {
      throw platformError('PLATFORM_DATA_CORRUPT', privatePath, error instanceof Error ? error.message : String(error));
    }
  } else {
    privateKey = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
    await writeFileAtomic(privatePath, privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(), 0o600);
  }
  const publicKey = createPublicKey(privateKey);
  const publicKeyPem = publicKey.export({ type: 'spki', format: 'pem' }).toString();
  const existing = existsSync(publicKeyPath) ? readFileSync(publicKeyPath, 'utf8') : undefined;
  if (existing !== publicKeyPem) await writeFileAtomic(publicKeyPath, publicKeyPem);
  return { privateKey, publicKey, publicKeyPath, publicKeyPem };
}
