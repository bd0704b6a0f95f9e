/**
 * `getPlayStats` and `getPlayTotals`: the statistics of `describe_vod_played_static_data` over
 * more than the 100 vids one call takes, merged.
 */
import type { CallOptions } from './call-options.js';
import { MediaValidationError } from './errors.js';
import { chunks, type HelperContext, wholeListError } from './helper-context.js';
import type { DescribeVodPlayedStaticDataRequest, DescribeVodPlayedStaticDataResponse, PlayStatInfo } from './types.js';
import { MAX_VID_LIST, validateRequest } from './validate.js';

/** `describe_vod_played_static_data` with a `vid_list` of any length. */
export type PlayStatsRequest = Omit<DescribeVodPlayedStaticDataRequest, 'env_id'> & { env_id?: string };

/** Merged statistics: every chunk's rows in one list, and every chunk's log_id. */
export interface PlayStatsResult extends DescribeVodPlayedStaticDataResponse {
  log_ids: string[];
}

const ORDER: Record<number, (a: PlayStatInfo, b: PlayStatInfo) => number> = {
  1: (a, b) => a.play_count - b.play_count,
  2: (a, b) => b.play_count - a.play_count,
  3: (a, b) => a.traffic - b.traffic,
  4: (a, b) => b.traffic - a.traffic,
};

/**
 * Splits `vid_list` into calls of 100, runs them (the rate limiter paces them), and merges the
 * rows, sorted again by `order_type` across chunks.
 * @example const { play_static_infos } = await getPlayStats(context, { vid_list, order_type: 2, start_time, end_time })
 */
export async function getPlayStats(
  { call, clock, envId }: HelperContext,
  request: PlayStatsRequest,
  options: CallOptions = {},
): Promise<PlayStatsResult> {
  const vids = request.vid_list;
  if (!Array.isArray(vids) || vids.length === 0) {
    throw new MediaValidationError('describe_vod_played_static_data', {
      field: 'vid_list',
      value: vids,
      message: `vid_list must have at least 1 entry, got ${JSON.stringify(vids)}`,
    });
  }
  const parts = chunks(vids, MAX_VID_LIST);
  // Every chunk is checked before the first is sent, so a bad request sends nothing.
  const env_id = request.env_id ?? envId;
  for (const [p, vid_list] of parts.entries()) {
    const issue = validateRequest(
      'describe_vod_played_static_data',
      { ...request, env_id, vid_list },
      { now: clock.now() },
    );
    if (issue !== undefined)
      throw wholeListError('describe_vod_played_static_data', issue, 'vid_list', p * MAX_VID_LIST);
  }
  const answers = await Promise.all(
    parts.map((vid_list) =>
      call('describe_vod_played_static_data', { ...request, vid_list } as DescribeVodPlayedStaticDataRequest, options),
    ),
  );
  const rows = answers.flatMap((answer) => answer.play_static_infos);
  const order = ORDER[request.order_type];
  if (order !== undefined && parts.length > 1) rows.sort(order);
  const log_ids = answers.map((a) => a.log_id).filter((id): id is string => id !== undefined);
  return {
    err_no: 0,
    err_msg: answers[0]?.err_msg ?? '',
    ...(log_ids[0] === undefined ? {} : { log_id: log_ids[0] }),
    play_static_infos: rows,
    log_ids,
  };
}

/** Plays and traffic of one video, summed over mini-programs. */
export interface PlayTotals {
  play_count: number;
  traffic: number;
}

/**
 * Plays and traffic per vid for a `vid_list` of any length, summed over the mini-programs of
 * `app_id_list` when one is given. Vids without data are absent from the map.
 * @example const totals = await getPlayTotals(context, { vid_list, order_type: 2, start_time, end_time }); totals.get(vid)?.play_count
 */
export async function getPlayTotals(
  context: HelperContext,
  request: PlayStatsRequest,
  options: CallOptions = {},
): Promise<Map<string, PlayTotals>> {
  const { play_static_infos } = await getPlayStats(context, request, options);
  const totals = new Map<string, PlayTotals>();
  for (const row of play_static_infos) {
    const total = totals.get(row.vid) ?? { play_count: 0, traffic: 0 };
    total.play_count += row.play_count;
    total.traffic += row.traffic;
    totals.set(row.vid, total);
  }
  return totals;
}
