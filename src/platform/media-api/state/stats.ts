/**
 * `PlayStats`: plays and traffic per video, app and minute, kept in the state for 31 days,
 * and the row format of the two statistics operations.
 */
import type { StateStore } from './state-store.js';
import type { PlayBucket, VideoRecord } from './state.js';

/** Buckets older than this are dropped: the statistics reach back 30 days. */
const KEEP_SECONDS = 31 * 86_400;

/** Totals of one video (and one app when split). */
export interface PlayTotals {
  vid: string;
  appid: string;
  plays: number;
  traffic: number;
}

/**
 * Counts plays and traffic per video, per app and per minute, in the state (so they
 * survive a restart). A query covers every minute that overlaps its time range.
 * @example
 * stats.record('v1', 'tt1', { play: true, bytes: 1024 });
 * stats.totals(['v1'], start, end) // [{ vid: 'v1', appid: '', plays: 1, traffic: 1024 }]
 */
export class PlayStats {
  readonly #store: StateStore;
  readonly #now: () => number;
  readonly #index = new Map<string, PlayBucket>();

  constructor(store: StateStore, now: () => number = Date.now) {
    this.#store = store;
    this.#now = now;
    const cutoff = Math.floor(now() / 1000) - KEEP_SECONDS;
    store.state.plays = store.state.plays.filter((b) => b.minute >= cutoff);
    for (const bucket of store.state.plays) this.#index.set(keyOf(bucket.vid, bucket.appid, bucket.minute), bucket);
  }

  /** Adds one play and/or some bytes of traffic to the current minute. */
  record(vid: string, appid: string, delta: { play: boolean; bytes: number }): void {
    if (!delta.play && delta.bytes === 0) return;
    const minute = Math.floor(this.#now() / 60_000) * 60;
    const key = keyOf(vid, appid, minute);
    let bucket = this.#index.get(key);
    if (bucket === undefined) {
      bucket = { vid, appid, minute, plays: 0, traffic: 0 };
      this.#index.set(key, bucket);
      this.#store.state.plays.push(bucket);
    }
    if (delta.play) bucket.plays += 1;
    bucket.traffic += delta.bytes;
    this.#store.changed();
  }

  /**
   * Totals per video within [start, end] (unix seconds). With `appids`, one row per video and
   * app; without, one row per video with an empty appid.
   */
  totals(vids: Iterable<string>, start: number, end: number, appids?: readonly string[]): PlayTotals[] {
    const wanted = new Set(vids);
    const rows = new Map<string, PlayTotals>();
    for (const vid of wanted) {
      for (const appid of appids ?? ['']) rows.set(`${vid}\n${appid}`, { vid, appid, plays: 0, traffic: 0 });
    }
    for (const bucket of this.#store.state.plays) {
      if (!wanted.has(bucket.vid) || bucket.minute > end || bucket.minute + 60 <= start) continue;
      const row = rows.get(`${bucket.vid}\n${appids === undefined ? '' : bucket.appid}`);
      if (row === undefined) continue;
      row.plays += bucket.plays;
      row.traffic += bucket.traffic;
    }
    return [...rows.values()];
  }

  /** Forgets a deleted video's plays. */
  forget(vid: string): void {
    this.#store.state.plays = this.#store.state.plays.filter((b) => b.vid !== vid);
    for (const [key, bucket] of this.#index) if (bucket.vid === vid) this.#index.delete(key);
    this.#store.changed();
  }
}

function keyOf(vid: string, appid: string, minute: number): string {
  return `${vid}\n${appid}\n${minute}`;
}

/**
 * Formats a video's creation time for `PlayStatInfo.create_time`: `YYYY-MM-DD HH:mm:ss` in
 * UTC+8, the platform's local time (our decision; the platform contract, Media API, gives only
 * "string").
 * @example formatCreateTime(0) // '1970-01-01 08:00:00'
 */
export function formatCreateTime(unixSeconds: number): string {
  return new Date((unixSeconds + 8 * 3600) * 1000).toISOString().slice(0, 19).replace('T', ' ');
}

/** The video fields a statistics row repeats. */
export function statRow(video: VideoRecord, totals: PlayTotals) {
  return {
    vid: video.vid,
    app_id: totals.appid,
    name: video.name,
    size: video.original.size,
    duration: video.original.duration,
    create_time: formatCreateTime(video.uploadTime),
    play_count: totals.plays,
    traffic: totals.traffic,
  };
}
