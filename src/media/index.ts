/**
 * `cloudfn/media`: a typed, signed client for the nine `cloud_voc` operations of
 * docs/platform-contract.md#media-api, with the wire types and the request validation the
 * emulator shares.
 */
export * from './types.js';
export {
  validateRequest,
  isOperation,
  MAX_PAGE_SIZE,
  MAX_URL_SETS,
  MAX_JOB_IDS,
  MAX_VID_LIST,
  MAX_APP_ID_LIST,
  MIN_EXPIRE_TIME,
  MAX_EXPIRE_TIME,
  STATS_WINDOW_SECONDS,
} from './validate.js';
export type { ValidationIssue, ValidateOptions } from './validate.js';
export { normalizeResponse } from './normalize.js';
export { createMediaClient } from './client.js';
export type { MediaClient } from './client.js';
export type { CallOptions } from './call-options.js';
export { resolveMediaOptions, TOKEN_ERROR_ERR_NOS } from './options.js';
export type { MediaClientOptions, MediaLogger, ResolvedMediaOptions } from './options.js';
export { defaultClientTokenFetcher } from './token.js';
export type {
  ClientToken,
  ClientTokenFetcher,
  ClientTokenRequest,
  TokenProvider,
  TokenProviderContext,
  JsonPost,
} from './token.js';
export { systemClock } from './clock.js';
export type { MediaClock } from './clock.js';
export { TokenBucket } from './rate-limit.js';
export { MediaError, MediaApiError, MediaValidationError, mediaErrors, createMediaError } from './errors.js';
export type { MediaErrorCode, MediaApiErrorInit } from './errors.js';
export type { ListVideosFilter } from './list-videos.js';
export type { WaitOptions } from './poll.js';
export type { UploadOutcome, TranscodeOutcome } from './workflows.js';
export type { PlayStatsRequest, PlayStatsResult, PlayTotals } from './play-stats.js';
