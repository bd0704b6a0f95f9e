/**
 * Turns what the platform sends into the documented types. The platform contract (Media API)
 * declares `err_no` and `total_num` as strings while its samples send numbers, `err_msg` as an
 * int while samples send text, and shows `file_type` once as a single string: every such field
 * gets one shape here.
 */
import type { Operation, ResponseOf } from './types.js';

type Obj = Record<string, unknown>;
const isObj = (value: unknown): value is Obj => typeof value === 'object' && value !== null && !Array.isArray(value);

/** A number from a number or its decimal text; anything else is left as it came. */
function num(value: unknown): unknown {
  if (typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value))) return Number(value);
  return value;
}

/** Numeric fields of the documented resources that samples may send as text. */
const NUMERIC = [
  'size',
  'upload_time',
  'business_status',
  'trans_code_status',
  'source_type',
  'bitrate',
  'height',
  'width',
  'duration',
  'play_count',
  'traffic',
  'run_status',
];

function numbers(record: Obj): Obj {
  const out: Obj = { ...record };
  for (const field of NUMERIC) if (field in out) out[field] = num(out[field]);
  return out;
}

function sourceInfo(value: unknown): unknown {
  if (!isObj(value)) return value;
  const out = numbers(value);
  const fileType = out.file_type;
  if (typeof fileType === 'string') out.file_type = fileType === '' ? [] : [fileType];
  return out;
}

const list = (value: unknown, each: (item: Obj) => Obj): unknown =>
  Array.isArray(value) ? value.map((item) => (isObj(item) ? each(item) : item)) : value;

/** `err_no` as a number: 0 when absent (a 2xx without it is read as success). */
export function errNoOf(body: Obj): number | undefined {
  const value = body.err_no;
  if (value === undefined || value === null || value === '') return undefined;
  const n = Number(value);
  return Number.isFinite(n) ? n : undefined;
}

/**
 * `log_id` when it is a usable string (the platform contract, Media API, also declares it as a
 * bool).
 */
export function logIdOf(body: unknown): string | undefined {
  if (!isObj(body)) return undefined;
  const value = body.log_id;
  if (typeof value === 'string' && value !== '') return value;
  if (typeof value === 'number') return String(value);
  return undefined;
}

/**
 * The documented response body of `operation`, normalized: `err_no`, `total_num` and the
 * numeric resource fields as numbers, `err_msg` as text, `log_id` a string (falling back to the
 * `x-platform-logid` header), `run_id` a string, `file_type` always a list.
 * @example normalizeResponse('get_video_list', { err_no: '0', err_msg: 'success', total_num: '2', data: [] }, undefined)
 * // { err_no: 0, err_msg: 'success', total_num: 2, data: [] }
 */
export function normalizeResponse<O extends Operation>(
  operation: O,
  body: Obj,
  headerLogId: string | undefined,
): ResponseOf<O> {
  const out: Obj = {
    ...body,
    err_no: errNoOf(body) ?? 0,
    err_msg: body.err_msg === undefined || body.err_msg === null ? '' : String(body.err_msg),
  };
  const logId = logIdOf(body) ?? headerLogId;
  if (logId === undefined) delete out.log_id;
  else out.log_id = logId;
  switch (operation) {
    case 'get_video_list':
      out.total_num = Number(num(body.total_num) ?? 0);
      if (Number.isNaN(out.total_num)) out.total_num = 0;
      out.data = list(body.data, numbers);
      break;
    case 'get_video_by_vid':
      out.data = list(body.data, numbers);
      break;
    case 'get_upload_job_info':
      if (isObj(body.data)) {
        const data: Obj = { ...body.data };
        data.video_infos = list(data.video_infos, (info) => ({ ...info, source_info: sourceInfo(info.source_info) }));
        if ('source_info' in data) data.source_info = sourceInfo(data.source_info);
        if (data.video_infos === undefined) delete data.video_infos;
        out.data = data;
      }
      break;
    case 'start_work_flow':
      if (typeof body.run_id === 'number') out.run_id = String(body.run_id);
      break;
    case 'get_work_flow_exection':
      out.run_status = num(body.run_status);
      out.run_status_msg =
        body.run_status_msg === undefined || body.run_status_msg === null ? '' : String(body.run_status_msg);
      break;
    case 'describe_vod_played_top_data':
    case 'describe_vod_played_static_data':
      out.play_static_infos = Array.isArray(body.play_static_infos) ? list(body.play_static_infos, numbers) : [];
      break;
    default:
      break;
  }
  return out as unknown as ResponseOf<O>;
}
