/**
 * `cloudfn/media`: a typed, signed client for the nine `cloud_voc` operations of document 2,
 * with the wire types and the request validation the emulator shares.
 */
export * from './types.js';
export { validateRequest, isOperation, MAX_PAGE_SIZE, MAX_URL_SETS, MAX_JOB_IDS, MAX_VID_LIST, MAX_APP_ID_LIST, MIN_EXPIRE_TIME, MAX_EXPIRE_TIME, STATS_WINDOW_SECONDS } from './validate.js';
export type { ValidationIssue, ValidateOptions } from './validate.js';
