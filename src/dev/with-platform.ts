/**
 * `cloudfn dev --platform`: the platform emulator started beside the dev server, with the
 * functions pointed at it. The media client gets the emulator's URL, client credentials, the
 * emulator's public key (every 2xx answer is verified) and a dev app key registered with the
 * emulator (every call is signed), so `createMediaClient()` with no options runs the whole
 * signed flow: upload, transcode, playback, statistics.
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { dataHomeFor } from '../app/app-root.js';
import { addAppKey, createPlatform, mediaClientEnv, type Platform } from '../platform/index.js';
import { generateKeyPair } from '../sign/index.js';
import { hostGuard } from './host-guard.js';

/** The key version of the dev app key registered with the emulator. */
export const DEV_KEY_VERSION = '1';

/** The emulator beside a dev server, and the variables that point functions at it. */
export interface DevPlatform {
  platform: Platform;
  /** The `CLOUDFN_MEDIA_*` variables (and `CLOUDFN_PLATFORM_SAMPLE_URL`) for `startDevServer({ env })`. */
  env: Record<string, string>;
  close(): Promise<void>;
}

export interface DevPlatformOptions {
  /** @default 4000 */
  port?: number;
  /** @default '127.0.0.1' */
  host?: string;
  /** The emulator's data folder. @default `platform/` of the data home (the app root's `.cloudfn/`, else `<root>/.cloudfn/`) */
  dataDir?: string;
  /** Where the emulator's lines go. @default stdout, prefixed `platform:` */
  log?: (line: string) => void;
  /**
   * Where the emulator POSTs its signed callbacks (upload and transcode ends), e.g. a function
   * of the dev server: `http://127.0.0.1:8000/notify` (`cloudfn dev --platform-callback-url`).
   * @default none: no callbacks
   */
  callbackUrl?: string;
  /** Host names the emulator answers besides its loopback names and `host`; `true` for any. @default [] */
  allowedHosts?: readonly string[] | true;
}

/**
 * A dev-only app key pair kept in the (git-ignored) data folder, made on first use. Its private
 * key never leaves this machine; it exists so local calls are signed exactly as deployed ones.
 */
function devAppKey(dataDir: string): { privateKeyPath: string; publicKeyPem: string } {
  const dir = join(dataDir, 'dev-app-key');
  const privateKeyPath = join(dir, 'app_private_key.dev-only.pem');
  const publicKeyPath = join(dir, 'app_public_key.pem');
  if (!existsSync(privateKeyPath) || !existsSync(publicKeyPath)) {
    mkdirSync(dir, { recursive: true });
    const pair = generateKeyPair();
    writeFileSync(privateKeyPath, pair.privateKeyPem, { mode: 0o600 });
    chmodSync(privateKeyPath, 0o600);
    writeFileSync(publicKeyPath, pair.publicKeyPem);
  }
  return { privateKeyPath, publicKeyPem: readFileSync(publicKeyPath, 'utf8') };
}

/**
 * The variables that point `createMediaClient()` at a running emulator with every call signed:
 * `mediaClientEnv`'s, plus `CLOUDFN_MEDIA_APPID`, `CLOUDFN_MEDIA_PRIVATE_KEY` and
 * `CLOUDFN_MEDIA_KEY_VERSION` of the dev app key in `dataDir`, registered with the emulator.
 * `cloudfn dev --platform` passes them to functions and `cloudfn platform` prints them: both
 * register the same key in the same data folder, so lines copied into `.env` keep working after
 * a `--platform` run made the appid require signed calls.
 * @example const env = await devAppEnv(platform, platform.dataDir) // { CLOUDFN_MEDIA_BASE_URL, ..., CLOUDFN_MEDIA_APPID, ... }
 */
export async function devAppEnv(
  platform: Parameters<typeof mediaClientEnv>[0],
  dataDir: string,
): Promise<Record<string, string>> {
  const env = mediaClientEnv(platform);
  const appid = env['CLOUDFN_MEDIA_CLIENT_KEY']!;
  const key = devAppKey(dataDir);
  await addAppKey(dataDir, appid, DEV_KEY_VERSION, key.publicKeyPem);
  env['CLOUDFN_MEDIA_APPID'] = appid;
  env['CLOUDFN_MEDIA_PRIVATE_KEY'] = key.privateKeyPath;
  env['CLOUDFN_MEDIA_KEY_VERSION'] = DEV_KEY_VERSION;
  return env;
}

/**
 * Starts the emulator for a dev project and returns the variables its functions need.
 * @example
 * const dev = await startDevPlatform(root, { port: 4000 });
 * await startDevServer({ root, env: dev.env });
 */
export async function startDevPlatform(root: string, options: DevPlatformOptions = {}): Promise<DevPlatform> {
  const dataDir = options.dataDir ?? join(dataHomeFor(root), 'platform');
  const log = options.log ?? ((line: string) => void process.stdout.write(`platform: ${line}\n`));
  const platform = await createPlatform({
    port: options.port ?? 4000,
    host: options.host ?? '127.0.0.1',
    dataDir,
    log,
    ...(options.callbackUrl === undefined ? {} : { callbackUrl: options.callbackUrl }),
    // Who may call it, as for cloudfn platform (host-guard.ts): writes only from no web page.
    guard: hostGuard({
      ...{ host: options.host ?? '127.0.0.1', allowedHosts: options.allowedHosts ?? [] },
      setting: 'CLOUDFN_ALLOWED_HOSTS',
      writes: () => true,
    }),
  });
  const env = await devAppEnv(platform, dataDir);
  const appid = env['CLOUDFN_MEDIA_APPID']!;
  // The server SDK stand-in's database lives beside the emulator's state.
  env['CLOUDFN_PLATFORM_DATA'] = dataDir;
  log(
    `emulator on ${platform.url} (app ${appid}, key_version ${DEV_KEY_VERSION}; platform public key ${platform.publicKeyPath})`,
  );
  return { platform, env, close: () => platform.close() };
}
