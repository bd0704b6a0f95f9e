/**
 * The registry of app public keys in `<dataDir>/app_keys.json`: checks and normalizes an
 * uploaded key, adds it (`cloudfn platform keys add`) and serves keys by appid and
 * key_version to the signature check, re-reading the file when it changes.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { KeyObject } from 'node:crypto';
import { loadPublicKey } from '../../../sign/index.js';
import { writeFileAtomic } from '../state/atomic-file.js';
import { platformError } from '../../errors.js';

/** Name of the app key registry inside the data folder. */
export const APP_KEYS_FILE = 'app_keys.json';

interface AppKeysFile {
  version: 1;
  /** appid → key_version → SPKI PEM. */
  keys: Record<string, Record<string, string>>;
}

function readKeysFile(file: string): AppKeysFile {
  if (!existsSync(file)) return { version: 1, keys: {} };
  try {
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as AppKeysFile;
    if (parsed.version !== 1 || typeof parsed.keys !== 'object' || parsed.keys === null)
      throw new Error('it is not a version 1 key registry');
    return parsed;
  } catch (error) {
    throw platformError('PLATFORM_DATA_CORRUPT', file, error instanceof Error ? error.message : String(error));
  }
}

/**
 * Checks an uploaded app public key as docs/platform-contract.md#signing asks (the whole SPKI
 * PEM, "BEGIN PUBLIC KEY", RSA 2048) and returns its normalized PEM. `input` is the PEM text or
 * a file path.
 * @example normalizeAppPublicKey(readFileSync('app_public_key.pem', 'utf8'))
 */
export function normalizeAppPublicKey(input: string): string {
  const text =
    !input.includes('-----BEGIN') && existsSync(input) && statSync(input).isFile()
      ? readFileSync(input, 'utf8')
      : input;
  if (!/-----BEGIN PUBLIC KEY-----[\s\S]+-----END PUBLIC KEY-----/.test(text)) {
    const armour = /-----BEGIN ([A-Z ]+)-----/.exec(text)?.[1];
    throw platformError(
      'PLATFORM_BAD_PUBLIC_KEY',
      armour === undefined ? 'no PEM armour found' : `got "BEGIN ${armour}"`,
    );
  }
  let key: KeyObject;
  try {
    key = loadPublicKey(text);
  } catch (error) {
    throw platformError('PLATFORM_BAD_PUBLIC_KEY', error instanceof Error ? error.message : String(error));
  }
  return key.export({ type: 'spki', format: 'pem' }).toString();
}

/**
 * Registers an app public key for `appid` under `keyVersion` in `<dataDir>/app_keys.json`.
 * Safe while the emulator runs: it re-reads the file when it changes.
 * @example await addAppKey('.cloudfn/platform', 'tt123', '1', pemText)
 */
export async function addAppKey(
  dataDir: string,
  appid: string,
  keyVersion: string,
  publicKey: string,
): Promise<string> {
  if (appid.trim() === '') throw platformError('PLATFORM_PARAM_ERROR', 'appid must not be empty');
  if (keyVersion.trim() === '') throw platformError('PLATFORM_PARAM_ERROR', 'key_version must not be empty');
  const pem = normalizeAppPublicKey(publicKey);
  await mkdir(dataDir, { recursive: true });
  const file = join(dataDir, APP_KEYS_FILE);
  const registry = readKeysFile(file);
  registry.keys[appid] = { ...registry.keys[appid], [keyVersion]: pem };
  await writeFileAtomic(file, JSON.stringify(registry, null, 2) + '\n');
  return file;
}

/**
 * The registry the server reads: keys by appid and key_version, re-read from disk when the
 * file's modification time changes so `cloudfn platform keys add` applies without a restart.
 * @example const keys = new AppKeyRegistry(dir); keys.hasKeys('tt1'); keys.resolve('tt1', '1')
 */
export class AppKeyRegistry {
  readonly #file: string;
  #mtime = -1;
  #keys: Record<string, Record<string, string>> = {};

  constructor(dataDir: string) {
    this.#file = join(dataDir, APP_KEYS_FILE);
  }

  /** True when `appid` has at least one registered key, so its requests must be signed. */
  hasKeys(appid: string): boolean {
    const versions = this.#current()[appid];
    return versions !== undefined && Object.keys(versions).length > 0;
  }

  /** The PEM of `appid`'s key `keyVersion`, or undefined. */
  resolve(appid: string, keyVersion: string): string | undefined {
    return this.#current()[appid]?.[keyVersion];
  }

  #current(): Record<string, Record<string, string>> {
    let mtime = 0;
    try {
      mtime = statSync(this.#file).mtimeMs;
    } catch {
      mtime = 0;
    }
    if (mtime !== this.#mtime) {
      this.#keys = mtime === 0 ? {} : readKeysFile(this.#file).keys;
      this.#mtime = mtime;
    }
    return this.#keys;
  }
}
