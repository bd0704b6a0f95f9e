/**
 * `mediaClientEnv`: the `CLOUDFN_MEDIA_*` variables (and the sample video's URL) that point
 * `createMediaClient()` at a running emulator; the dev server passes them to functions.
 */
import { SAMPLE_PATH } from './samples.js';

/** What `mediaClientEnv` needs of a running emulator. */
export interface PlatformAddress {
  url: string;
  publicKeyPath: string;
  options: { clients: Record<string, string>; envIds: readonly string[] };
}

/** The app a dev project acts as when the emulator accepts any client. */
export const DEV_CLIENT_KEY = 'tt-dev-app';

/**
 * The `CLOUDFN_MEDIA_*` variables that point `createMediaClient()` (with no options) at the
 * emulator, plus `CLOUDFN_PLATFORM_SAMPLE_URL`, a video it serves for a first upload. The dev
 * server passes them to functions through its `env` option.
 * @example
 * const platform = await createPlatform({ port: 4000 });
 * const dev = await startDevServer({ root, env: mediaClientEnv(platform) });
 */
export function mediaClientEnv(
  platform: PlatformAddress,
  app: { clientKey?: string; clientSecret?: string } = {},
): Record<string, string> {
  const registered = Object.entries(platform.options.clients)[0];
  const clientKey = app.clientKey ?? registered?.[0] ?? DEV_CLIENT_KEY;
  const clientSecret = app.clientSecret ?? platform.options.clients[clientKey] ?? 'dev-secret';
  return {
    CLOUDFN_MEDIA_BASE_URL: platform.url,
    CLOUDFN_MEDIA_CLIENT_KEY: clientKey,
    CLOUDFN_MEDIA_CLIENT_SECRET: clientSecret,
    CLOUDFN_MEDIA_PLATFORM_PUBLIC_KEY: platform.publicKeyPath,
    CLOUDFN_MEDIA_ENV_ID: platform.options.envIds[0] ?? 'cloudfn-dev',
    CLOUDFN_PLATFORM_SAMPLE_URL: platform.url + SAMPLE_PATH,
  };
}
