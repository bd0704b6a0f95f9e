/**
 * Scripted traffic for load: N pushes a second to one room and type, each push one message
 * filled from a template (the partial message given), for a bounded count. Runs until the count
 * is sent, the task stops (the push is refused) or `stop()`; a push the function fails still
 * counts, and the totals say how many answered 2xx.
 */
import { platformError } from '../errors.js';
import type { LiveMsgType } from './messages.js';
import type { LiveRooms } from './rooms.js';

/** The highest rate and count one run may ask for. */
export const TRAFFIC_LIMITS = { rate: 1000, count: 100_000 } as const;

/** What a run did, so far or in the end. */
export interface TrafficTotals {
  roomid: string;
  msgType: LiveMsgType;
  rate: number;
  count: number;
  sent: number;
  ok: number;
  failed: number;
  /** Why it stopped early, when it did. */
  stoppedBy?: string;
}

/** A running run. */
export interface TrafficRun {
  totals(): TrafficTotals;
  /** Resolves with the totals when the run ends. */
  done: Promise<TrafficTotals>;
  stop(): void;
}

function whole(name: string, value: unknown, max: number): number {
  const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 1 || n > max)
    throw platformError(
      'PLATFORM_LIVE_BAD_TRAFFIC',
      `${name} must be a whole number from 1 to ${max}, got ${JSON.stringify(value)}`,
    );
  return n;
}

/**
 * Starts a run of `count` pushes at `rate` a second (both bounded by `TRAFFIC_LIMITS`).
 * @example const run = startTraffic(rooms, { roomid: '7001', msgType: 'live_like', rate: 50, count: 500, template: { like_num: 3 } })
 */
export function startTraffic(
  rooms: LiveRooms,
  options: { roomid: string; msgType: LiveMsgType; rate: unknown; count: unknown; template?: unknown },
): TrafficRun {
  const rate = whole('rate', options.rate, TRAFFIC_LIMITS.rate);
  const count = whole('count', options.count, TRAFFIC_LIMITS.count);
  const template = options.template ?? {};
  // A bad template fails now, not once per push.
  rooms.prepare(options.roomid, options.msgType, template);
  const totals: TrafficTotals = {
    roomid: options.roomid,
    msgType: options.msgType,
    rate,
    count,
    sent: 0,
    ok: 0,
    failed: 0,
  };
  let timer: NodeJS.Timeout | undefined;
  let finish!: (t: TrafficTotals) => void;
  const done = new Promise<TrafficTotals>((resolve) => (finish = resolve));
  let inFlight = 0;
  let ended = false;
  const end = (reason?: string): void => {
    if (ended) return;
    ended = true;
    clearInterval(timer);
    if (reason !== undefined) totals.stoppedBy = reason;
    const settle = (): void => (inFlight === 0 ? finish({ ...totals }) : void setTimeout(settle, 5));
    settle();
  };
  // Pushes go out in ticks of 10 ms (no timer per message); each tick sends what is due by the
  // clock since the start, so a late tick catches up and the rate holds under load.
  const started = performance.now();
  const tickMs = Math.max(10, Math.min(100, Math.floor(1000 / rate)));
  timer = setInterval(() => {
    const due = Math.min(count, Math.floor((rate * (performance.now() - started)) / 1000) + 1);
    while (totals.sent < due && !ended) {
      totals.sent += 1;
      inFlight += 1;
      rooms.send(options.roomid, options.msgType, template).then(
        (answer) => {
          inFlight -= 1;
          if (answer.status >= 200 && answer.status < 300) totals.ok += 1;
          else totals.failed += 1;
        },
        (error: unknown) => {
          inFlight -= 1;
          totals.failed += 1;
          end((error as Error).message);
        },
      );
    }
    if (totals.sent >= count) end();
  }, tickMs);
  timer.unref();
  return { totals: () => ({ ...totals }), done, stop: () => end('stopped') };
}
