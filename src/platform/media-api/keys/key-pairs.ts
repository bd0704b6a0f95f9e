/**
 * The emulator's own RSA key pairs in the data folder: the default pair and one per
 * mini-program (the platform key differs per appid), each loaded or generated on first use,
 * with its public key file rewritten from the private key; and the listing behind
 * `cloudfn platform keys`.
 */
import { createHash, generateKeyPairSync, createPrivateKey, createPublicKey, type KeyObject } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomic } from '../state/atomic-file.js';
import { platformError } from '../../errors.js';

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
  return loadOrCreatePair(join(dataDir, PLATFORM_PRIVATE_KEY_FILE), join(dataDir, PLATFORM_PUBLIC_KEY_FILE));
}

/** One key pair from its two files, the private one generated when missing. */
async function loadOrCreatePair(privatePath: string, publicKeyPath: string): Promise<PlatformKeys> {
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

/**
 * The folder of per-mini-program key pairs: `<appid>.key.pem` (private) beside it and
 * `public/<appid>.pem`, a folder a provider's `createPlatformKeyStore({ dir })` reads as is.
 */
export const APP_PLATFORM_KEYS_DIR = 'platform_keys';

/** The platform's key pairs: one per mini-program that has its own, and the shared default. */
export interface PlatformKeyRing {
  /** The pair of every appid without its own (`platform_private_key.pem`). */
  readonly default: PlatformKeys;
  /** Pairs by appid. */
  readonly apps: ReadonlyMap<string, PlatformKeys>;
  /** `<data>/platform_keys/public`: one `<appid>.pem` per mini-program with its own pair. */
  readonly publicDir: string;
  /** The private key that signs for `appid`: its own, or the default. */
  privateKeyOf(appid: string | undefined): KeyObject;
}

const APPID = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * Loads the default pair and a pair per appid: those named in `appids` (generated on first
 * start) and those already in the data folder.
 * @example const ring = await loadPlatformKeyRing('.cloudfn/platform', ['wxa', 'wxb'])
 */
export async function loadPlatformKeyRing(dataDir: string, appids: readonly string[]): Promise<PlatformKeyRing> {
  const base = await loadOrCreatePlatformKeys(dataDir);
  const dir = join(dataDir, APP_PLATFORM_KEYS_DIR);
  const publicDir = join(dir, 'public');
  const names = new Set(appids);
  for (const appid of names) {
    if (!APPID.test(appid))
      throw platformError(
        'PLATFORM_OPTIONS',
        'appids',
        `an appid is 1 to 64 letters, digits, _ or -, got ${JSON.stringify(appid)}`,
      );
  }
  if (existsSync(dir))
    for (const file of readdirSync(dir)) if (file.endsWith('.key.pem')) names.add(file.slice(0, -'.key.pem'.length));
  const apps = new Map<string, PlatformKeys>();
  if (names.size > 0) await mkdir(publicDir, { recursive: true });
  for (const appid of [...names].sort())
    apps.set(appid, await loadOrCreatePair(join(dir, `${appid}.key.pem`), join(publicDir, `${appid}.pem`)));
  return {
    default: base,
    apps,
    publicDir,
    privateKeyOf: (appid) => (appid === undefined ? undefined : apps.get(appid))?.privateKey ?? base.privateKey,
  };
}

/** One line of `cloudfn platform keys`. */
export interface PlatformKeyListing {
  /** The appid, or `*` for the default pair. */
  appid: string;
  /** SHA-256 of the public key's SPKI DER, as `cloudfn keys inspect` prints it. */
  fingerprint: string;
  publicKeyPath: string;
}

/**
 * The platform key pairs in a data folder, default first, without creating any.
 * @example for (const k of listPlatformKeys('.cloudfn/platform')) console.log(k.appid, k.fingerprint)
 */
export function listPlatformKeys(dataDir: string): PlatformKeyListing[] {
  const out: PlatformKeyListing[] = [];
  const add = (appid: string, privatePath: string, publicKeyPath: string) => {
    if (!existsSync(privatePath)) return;
    const der = createPublicKey(createPrivateKey(readFileSync(privatePath, 'utf8'))).export({
      type: 'spki',
      format: 'der',
    });
    out.push({ appid, fingerprint: 'sha256:' + createHash('sha256').update(der).digest('hex'), publicKeyPath });
  };
  add('*', join(dataDir, PLATFORM_PRIVATE_KEY_FILE), join(dataDir, PLATFORM_PUBLIC_KEY_FILE));
  const dir = join(dataDir, APP_PLATFORM_KEYS_DIR);
  const files = existsSync(dir)
    ? readdirSync(dir)
        .filter((f) => f.endsWith('.key.pem'))
        .sort()
    : [];
  for (const file of files) {
    const appid = file.slice(0, -'.key.pem'.length);
    add(appid, join(dir, file), join(dir, 'public', `${appid}.pem`));
  }
  return out;
}
