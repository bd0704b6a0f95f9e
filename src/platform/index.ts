/**
 * `cloudfn platform`: a local emulator of the open platform (docs/platform-contract.md, Signing
 * and Media API, from the platform's side), with real signatures, real media through ffmpeg,
 * async jobs and signed callbacks. See docs/platform.md.
 */
export { createPlatform, resetDataDir, type Platform } from './media-api/platform.js';
export {
  resolvePlatformOptions,
  type PlatformOptions,
  type ResolvedPlatformOptions,
} from './media-api/platform-options.js';
export { addAppKey, normalizeAppPublicKey, APP_KEYS_FILE } from './media-api/keys/app-keys.js';
export { PLATFORM_PUBLIC_KEY_FILE, PLATFORM_PRIVATE_KEY_FILE } from './media-api/keys/key-pairs.js';
export { parseFaults, FAULTS_GRAMMAR, type FaultSpec } from './media-api/http/faults.js';
export { TEMPLATES, type TranscodeTemplate } from './media-api/jobs/ffmpeg.js';
export { TOKEN_PATH, PUBLIC_KEY_PATH } from './media-api/http/server.js';
export { LOGID_HEADER } from './media-api/http/respond.js';
export { MEDIA_PREFIX } from './media-api/http/media-links.js';
export { DEFAULT_TRANS_CODE_TYPE } from './media-api/http/operations/work-flows.js';
export type { CallbackPayload, CallbackAttempt } from './media-api/jobs/callbacks.js';
export { PlatformError, platformErrors, type PlatformErrorCode, type PlatformErrorSpec } from './errors.js';
export { mediaClientEnv, DEV_CLIENT_KEY, type PlatformAddress } from './media-api/http/client-env.js';
export { SAMPLE_PATH } from './media-api/http/samples.js';
