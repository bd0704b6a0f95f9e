/**
 * The documented limits of every operation (platform contract, Media API), as one pure
 * function. The client runs it before sending anything; the emulator (src/platform) runs it on
 * what it receives, so both refuse exactly the same bodies.
 */
import { OPERATIONS } from './types.js';
import type { Operation } from './types.js';

/** The first problem found in a request body. */
export interface ValidationIssue {
  /** The field path, e.g. `page_size` or `url_sets[3].source_url`. */
  field: string;
  /** The value received (undefined when the field is missing). */
  value: unknown;
  /** Names the field, the value and the limit: "page_size must be at most 20, got 50". */
  message: string;
}

/** Options of `validateRequest`. */
export interface ValidateOptions {
  /** The current time in milliseconds, for the 30-day window of the statistics. @default Date.now() */
  now?: number;
}

/** Largest `page_size` of `get_video_list`. */
export const MAX_PAGE_SIZE = 20;
/** Most `url_sets` entries of one `upload_video_by_urls` call. */
export const MAX_URL_SETS = 20;
/** Most `job_ids` of one `get_upload_job_info` call. */
export const MAX_JOB_IDS = 20;
/** Most `vid_list` entries of one `describe_vod_played_static_data` call. */
export const MAX_VID_LIST = 100;
/** Most `app_id_list` entries of one `describe_vod_played_static_data` call. */
export const MAX_APP_ID_LIST = 20;
/** Shortest link lifetime of `get_video_by_vid`, in seconds (1 hour). */
export const MIN_EXPIRE_TIME = 3600;
/** Longest link lifetime of `get_video_by_vid`, in seconds (14 days). */
export const MAX_EXPIRE_TIME = 1_209_600;
/** How far back the statistics reach, in seconds (30 days). */
export const STATS_WINDOW_SECONDS = 30 * 86_400;

type Body = Record<string, unknown>;
type Check = (body: Body, now: number) => ValidationIssue | undefined;

const show = (value: unknown): string =>
  typeof value === 'string'
    ? JSON.stringify(value)
    : value === undefined
      ? 'nothing'
      : (JSON.stringify(value) ?? String(value));
const issue = (field: string, value: unknown, rule: string): ValidationIssue => ({
  field,
  value,
  message: `${field} ${rule}, got ${show(value)}`,
});

function integer(body: Body, field: string, min: number, max: number, required: boolean): ValidationIssue | undefined {
  const value = body[field];
  if (value === undefined) return required ? issue(field, value, 'is required') : undefined;
  if (typeof value !== 'number' || !Number.isInteger(value)) return issue(field, value, 'must be an integer');
  if (value < min) return issue(field, value, `must be at least ${min}`);
  if (value > max) return issue(field, value, `must be at most ${max}`);
  return undefined;
}

function text(body: Body, field: string, required: boolean): ValidationIssue | undefined {
  const value = body[field];
  if (value === undefined) return required ? issue(field, value, 'is required') : undefined;
  if (typeof value !== 'string') return issue(field, value, 'must be a string');
  if (required && value.trim() === '') return issue(field, value, 'must not be empty');
  return undefined;
}

function oneOf(body: Body, field: string, allowed: readonly unknown[], required: boolean): ValidationIssue | undefined {
  const value = body[field];
  if (value === undefined)
    return required ? issue(field, value, `is required (one of ${allowed.map(show).join(', ')})`) : undefined;
  if (!allowed.includes(value)) return issue(field, value, `must be one of ${allowed.map(show).join(', ')}`);
  return undefined;
}

function stringList(body: Body, field: string, min: number, max: number): ValidationIssue | undefined {
  const value = body[field];
  if (value === undefined) return min > 0 ? issue(field, value, `is required (${min} to ${max} entries)`) : undefined;
  if (!Array.isArray(value)) return issue(field, value, 'must be a list of strings');
  if (value.length < min) return issue(field, value, `must have at least ${min} entr${min === 1 ? 'y' : 'ies'}`);
  if (value.length > max)
    return { field, value, message: `${field} must have at most ${max} entries, got ${value.length}` };
  for (const [i, entry] of value.entries()) {
    if (typeof entry !== 'string' || entry.trim() === '')
      return issue(`${field}[${i}]`, entry, 'must be a non-empty string');
  }
  return undefined;
}

/** A timestamp in seconds; samples send it as decimal text, so numeric strings count. */
function seconds(value: unknown): number | undefined {
  if (typeof value === 'number' && Number.isInteger(value)) return value;
  if (typeof value === 'string' && /^\d+$/.test(value)) return Number(value);
  return undefined;
}

const timeRange: Check = (body, now) => {
  for (const field of ['start_time', 'end_time']) {
    const value = body[field];
    if (value === undefined) return issue(field, value, 'is required (a timestamp in seconds)');
    const s = seconds(value);
    if (s === undefined) return issue(field, value, 'must be a timestamp in seconds (an integer or its decimal text)');
    if (s > 1e11) return issue(field, value, 'must be in seconds, not milliseconds');
  }
  const start = seconds(body.start_time) as number;
  const end = seconds(body.end_time) as number;
  const earliest = Math.floor(now / 1000) - STATS_WINDOW_SECONDS;
  if (start < earliest)
    return issue('start_time', body.start_time, `must be within the last 30 days (at least ${earliest})`);
  if (end <= start) return issue('end_time', body.end_time, `must be greater than start_time (${start})`);
  return undefined;
};

const urlSets: Check = (body) => {
  const value = body.url_sets;
  if (value === undefined) return issue('url_sets', value, `is required (1 to ${MAX_URL_SETS} entries)`);
  if (!Array.isArray(value)) return issue('url_sets', value, 'must be a list of { source_url, file_name }');
  if (value.length === 0) return issue('url_sets', value, 'must have at least 1 entry');
  if (value.length > MAX_URL_SETS)
    return {
      field: 'url_sets',
      value,
      message: `url_sets must have at most ${MAX_URL_SETS} entries, got ${value.length}`,
    };
  for (const [i, entry] of value.entries()) {
    if (typeof entry !== 'object' || entry === null)
      return issue(`url_sets[${i}]`, entry, 'must be an object { source_url, file_name }');
    const { source_url, file_name } = entry as Body;
    if (!isHttpUrl(source_url))
      return issue(`url_sets[${i}].source_url`, source_url, 'must be an http or https URL of the video file');
    if (typeof file_name !== 'string' || file_name.trim() === '')
      return issue(`url_sets[${i}].file_name`, file_name, 'must be a non-empty name without extension');
  }
  return undefined;
};

function isHttpUrl(value: unknown): boolean {
  if (typeof value !== 'string') return false;
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
}

/** Every operation's checks, in the order the fields are documented; the first issue wins. */
const rules: Record<Operation, readonly Check[]> = {
  get_video_list: [
    (b) => integer(b, 'page_size', 1, MAX_PAGE_SIZE, true),
    (b) => integer(b, 'page_number', 0, Number.MAX_SAFE_INTEGER, true),
    (b) => oneOf(b, 'business_status', [98, 99], false),
    (b) => text(b, 'video_name', false),
    (b) => text(b, 'env_id', false),
  ],
  delete_video: [(b) => text(b, 'vid', true), (b) => text(b, 'env_id', true)],
  get_video_by_vid: [
    (b) => text(b, 'vid', true),
    (b) => text(b, 'domain', false),
    (b) => integer(b, 'expire_time', MIN_EXPIRE_TIME, MAX_EXPIRE_TIME, false),
  ],
  upload_video_by_urls: [urlSets],
  get_upload_job_info: [(b) => stringList(b, 'job_ids', 1, MAX_JOB_IDS)],
  start_work_flow: [(b) => text(b, 'vid', true), (b) => oneOf(b, 'trans_code_type', ['3', '4', '5'], false)],
  // Whether run_id is mandatory is "not shown"; the query means nothing without it, so it is required.
  get_work_flow_exection: [(b) => text(b, 'run_id', true)],
  describe_vod_played_top_data: [
    (b) => text(b, 'env_id', true),
    (b) => oneOf(b, 'order_type', [5, 6], true),
    timeRange,
  ],
  describe_vod_played_static_data: [
    (b) => text(b, 'env_id', true),
    (b) => stringList(b, 'vid_list', 1, MAX_VID_LIST),
    (b) => stringList(b, 'app_id_list', 0, MAX_APP_ID_LIST),
    (b) => oneOf(b, 'order_type', [1, 2, 3, 4], true),
    timeRange,
  ],
};

/**
 * True when `name` is one of the nine wire operations.
 * @example isOperation('get_work_flow_exection') // true
 */
export function isOperation(name: string): name is Operation {
  return (OPERATIONS as readonly string[]).includes(name);
}

/**
 * Checks a request body against the documented limits of `operation` and returns the first
 * issue, or undefined when the body may be sent. Extra fields are allowed (a sample sends
 * `env_id` to `get_video_list`).
 * @example
 * validateRequest('get_video_list', { page_size: 50, page_number: 0 })
 * // { field: 'page_size', value: 50, message: 'page_size must be at most 20, got 50' }
 */
export function validateRequest(
  operation: Operation,
  body: unknown,
  options: ValidateOptions = {},
): ValidationIssue | undefined {
  const checks = rules[operation];
  if (checks === undefined)
    return {
      field: 'operation',
      value: operation,
      message: `operation must be one of ${OPERATIONS.join(', ')}, got ${show(operation)}`,
    };
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return {
      field: 'body',
      value: body,
      message: `the ${operation} body must be a JSON object, got ${Array.isArray(body) ? 'a list' : show(body)}`,
    };
  }
  const now = options.now ?? Date.now();
  for (const check of checks) {
    const found = check(body as Body, now);
    if (found !== undefined) return found;
  }
  return undefined;
}
