/**
 * The settings of the server SDK stand-in, read in this one place from the environment when a
 * call needs them (the dev server and `cloudfn dev --platform` set them before functions load):
 * where the database lives, where `openApiInvoke` sends what the emulator does not answer, and
 * the emulator's address and client credentials for the access-token.
 */
import { join, resolve } from 'node:path';
import { envArea, type OptionSpec, readOptions, trimmed } from '../../../runtime/option-kit.js';
import { DEFAULT_DATA_DIR, PLATFORM_ENV_VARS } from '../media-api/platform-options.js';

/** The env var naming a local server for the OpenAPI interfaces the emulator does not implement. */
export const SDK_OPENAPI_URL_VAR = 'CLOUDFN_SDK_OPENAPI_URL';

/** What the stand-in reads. */
export interface SdkOptions {
  /** The emulator's data folder; the database is `<dataDir>/database/`. @default `<cwd>/.cloudfn/platform` */
  dataDir: string;
  /** The running emulator (CLOUDFN_MEDIA_BASE_URL), when there is one. @default undefined */
  emulatorUrl: string | undefined;
  /** A local server for every other interface (CLOUDFN_SDK_OPENAPI_URL). @default undefined */
  openApiUrl: string | undefined;
  /** Client credentials exchanged for the access-token (CLOUDFN_MEDIA_CLIENT_KEY/SECRET). */
  clientKey: string | undefined;
  clientSecret: string | undefined;
  /** Where they are exchanged (CLOUDFN_MEDIA_TOKEN_URL). @default `<emulatorUrl>/oauth/client_token/` */
  tokenUrl: string | undefined;
  /** The app key that signs calls to the emulator, when `cloudfn dev --platform` registered one. */
  signing: { appid: string; privateKeyPath: string; keyVersion: string } | undefined;
}

/** Read from the environment only; a blank variable is unset, and nothing is refused. */
const sdkArea = envArea((name, _where, detail) => new TypeError(`${name}: ${detail}`));

/** A setting read as trimmed text, or undefined when its variable is blank. */
const setting = (env: string): OptionSpec<string | undefined> => ({ env, parse: trimmed, default: undefined });

/** An address, trimmed and without a trailing `/`. */
const address = (env: string): OptionSpec<string | undefined> => ({
  env,
  parse: (raw, where) => trimmed(raw, where).replace(/\/+$/, ''),
  default: undefined,
});

const specs = {
  dataDir: setting(PLATFORM_ENV_VARS.dataDir),
  emulatorUrl: address('CLOUDFN_MEDIA_BASE_URL'),
  openApiUrl: address(SDK_OPENAPI_URL_VAR),
  clientKey: setting('CLOUDFN_MEDIA_CLIENT_KEY'),
  clientSecret: setting('CLOUDFN_MEDIA_CLIENT_SECRET'),
  tokenUrl: setting('CLOUDFN_MEDIA_TOKEN_URL'),
  appid: setting('CLOUDFN_MEDIA_APPID'),
  privateKeyPath: setting('CLOUDFN_MEDIA_PRIVATE_KEY'),
  keyVersion: setting('CLOUDFN_MEDIA_KEY_VERSION'),
};

/**
 * Reads the stand-in's settings from `env`.
 * @example readSdkOptions(process.env).dataDir // '/srv/app/.cloudfn/platform'
 */
export function readSdkOptions(env: Record<string, string | undefined> = process.env): SdkOptions {
  const { dataDir, appid, privateKeyPath, keyVersion, ...read } = readOptions(specs, { env }, sdkArea);
  return {
    dataDir: resolve(dataDir ?? join(process.cwd(), DEFAULT_DATA_DIR)),
    ...read,
    signing:
      appid !== undefined && privateKeyPath !== undefined && keyVersion !== undefined
        ? { appid, privateKeyPath, keyVersion }
        : undefined,
  };
}
