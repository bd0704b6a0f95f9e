/**
 * `cloudfn platform`: a local emulator of the open platform (docs/platform-contract.md, Signing
 * and Media API, from the platform's side), with real signatures, real media through ffmpeg,
 * async jobs and signed callbacks. See docs/platform.md.
 */
export { createPlatform, resetDataDir, type Platform } from './platform.js';
export { resolvePlatformOptions, type PlatformOptions, type ResolvedPlatformOptions } from './platform-options.js';
export { addAppKey, normalizeAppPublicKey, APP_KEYS_FILE } from './keys/app-keys.js';
export { PLATFORM_PUBLIC_KEY_FILE, PLATFORM_PRIVATE_KEY_FILE } from './keys/key-pairs.js';
export { parseFaults, FAULTS_GRAMMAR, type FaultSpec } from './http/faults.js';
export { TEMPLATES, type TranscodeTemplate } from './jobs/ffmpeg.js';
export { TOKEN_PATH, PUBLIC_KEY_PATH } from './http/server.js';
export { LOGID_HEADER } from './http/respond.js';
export { MEDIA_PREFIX } from './http/media-links.js';
export { DEFAULT_TRANS_CODE_TYPE } from './http/operations/work-flows.js';
export type { CallbackPayload, CallbackAttempt } from './jobs/callbacks.js';
export { PlatformError, platformErrors, type PlatformErrorCode, type PlatformErrorSpec } from './errors.js';
export { mediaClientEnv, DEV_CLIENT_KEY, type PlatformAddress } from './http/client-env.js';
export { SAMPLE_PATH } from './http/samples.js';
