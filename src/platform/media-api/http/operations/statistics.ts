/**
 * The two statistics operations, describe_vod_played_top_data and
 * describe_vod_played_static_data, over `PlayStats`.
 */
import type { VideoRecord } from '../../state/state.js';
import { statRow, type PlayTotals } from '../../state/stats.js';
import { ownedVideo, requireEnv, type OperationHandler } from './shared.js';

/** Most rows of describe_vod_played_top_data. */
export const TOP_LIMIT = 100;

const seconds = (value: unknown): number => Number(value);

type Row = ReturnType<typeof statRow>;

const orders: Record<number, (a: Row, b: Row) => number> = {
  1: (a, b) => a.play_count - b.play_count,
  2: (a, b) => b.play_count - a.play_count,
  3: (a, b) => a.traffic - b.traffic,
  4: (a, b) => b.traffic - a.traffic,
  5: (a, b) => b.play_count - a.play_count || b.traffic - a.traffic,
  6: (a, b) => b.traffic - a.traffic || b.play_count - a.play_count,
};

function rows(videos: Map<string, VideoRecord>, totals: PlayTotals[]): Row[] {
  return totals.map((t) => statRow(videos.get(t.vid)!, t));
}

/** describe_vod_played_top_data: the caller's 100 most played (5) or most downloaded (6) videos. */
export const describeTopData: OperationHandler = (ctx, body, caller) => {
  requireEnv(ctx, body['env_id']);
  const own = new Map(
    Object.values(ctx.store.state.videos)
      .filter((v) => v.appid === caller.appid)
      .map((v) => [v.vid, v]),
  );
  const totals = ctx.stats
    .totals(own.keys(), seconds(body['start_time']), seconds(body['end_time']))
    .filter((t) => t.plays > 0 || t.traffic > 0);
  const sorted = rows(own, totals).sort(
    (a, b) => orders[body['order_type'] as number]!(a, b) || a.vid.localeCompare(b.vid),
  );
  return { play_static_infos: sorted.slice(0, TOP_LIMIT) };
};

/**
 * describe_vod_played_static_data: plays and traffic of the given videos, one row per video
 * (app_id empty) or, with app_id_list, one row per video and mini-program.
 */
export const describeStaticData: OperationHandler = (ctx, body, caller) => {
  requireEnv(ctx, body['env_id']);
  const vids = [...new Set(body['vid_list'] as string[])];
  const videos = new Map(vids.map((vid) => [vid, ownedVideo(ctx, caller, vid)]));
  const appids = body['app_id_list'] as string[] | undefined;
  const totals = ctx.stats.totals(
    vids,
    seconds(body['start_time']),
    seconds(body['end_time']),
    appids === undefined ? undefined : [...new Set(appids)],
  );
  const order = orders[body['order_type'] as number]!;
  // Sort is stable, so equal rows keep the order of vid_list.
  return { play_static_infos: rows(videos, totals).sort(order) };
};
